/**
 * An error answer → ApiError. Bodies are checked, not trusted: an answer from a proxy or a load
 * balancer (HTML, empty, another JSON shape) still becomes an ApiError with the status, the
 * X-Request-Id header when present, and a generic type. Pure.
 */
import { ApiError } from './errors.js';
import type { FieldError } from './types.js';

export interface ErrorAnswer {
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
  body: string;
  retryAfterMs: number | undefined;
  attempts: number;
}

/** error.type of answers that are not the service's envelope. */
export const UNKNOWN_ERROR_TYPE = 'about:blank';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function fieldErrors(v: unknown): FieldError[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isRecord).flatMap((e) => {
    const location = str(e.location);
    const message = str(e.message);
    if (location === undefined || message === undefined) return [];
    const fix = str(e.fix);
    return [fix === undefined ? { location, message } : { location, message, fix }];
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function errorFromAnswer(answer: ErrorAnswer): ApiError {
  const json = parseJson(answer.body);
  const error = isRecord(json) && isRecord(json.error) ? json.error : undefined;
  const meta = isRecord(json) && isRecord(json.meta) ? json.meta : undefined;
  const title = str(error?.title) ?? (answer.statusText || `HTTP ${answer.status}`);
  return new ApiError({
    status: answer.status,
    type: str(error?.type) ?? UNKNOWN_ERROR_TYPE,
    title,
    detail: str(error?.detail) ?? title,
    requestId: str(meta?.requestId) ?? answer.headers.get('x-request-id') ?? undefined,
    errors: fieldErrors(error?.errors),
    retryAfterMs: answer.retryAfterMs,
    attempts: answer.attempts,
  });
}
