/**
 * Query-string encoding of getVerifications parameters (docs/api.md#parameters): a list becomes one repeated
 * parameter per item (`keyId=a&keyId=b`), never a comma-joined value, so that an item is sent exactly
 * as given; absent (undefined or null) parameters and empty lists are left out. Pure.
 */
import type { GetVerificationsParams } from './types.js';

type ParamValue = string | number | readonly (string | number)[] | null | undefined;

export function encodeQuery(params: GetVerificationsParams): URLSearchParams {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params) as [string, ParamValue][]) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value as readonly (string | number)[]) search.append(name, String(item));
    } else {
      search.append(name, String(value));
    }
  }
  return search;
}

/** `<baseUrl>/<path>?<query>`; keeps a path prefix of baseUrl (e.g. behind a proxy at /analytics). */
export function endpointUrl(baseUrl: string | URL, path: string, query?: URLSearchParams): URL {
  const base = new URL(String(baseUrl));
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  const url = new URL(path.replace(/^\/+/, ''), base);
  if (query) url.search = query.toString();
  return url;
}
