/**
 * What the dashboard shows, as one plain value, and its round trip through the URL's hash, so that a
 * view can be shared by its address. The credential is never part of it (it stays in sessionStorage).
 * Pure: no DOM, no clock.
 */
import type { Granularity } from '@va/contracts';

export const RANGES = ['1h', '3h', '24h', '7d', '30d', '90d', '365d'] as const;
export type Range = (typeof RANGES)[number];
export const RANGE_MS: Record<Range, number> = {
  '1h': 3_600_000,
  '3h': 3 * 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
  '90d': 90 * 86_400_000,
  '365d': 365 * 86_400_000,
};

export const GRANULARITY_CHOICES = ['auto', 'minute', 'hour', 'day', 'month'] as const;
export type GranularityChoice = (typeof GRANULARITY_CHOICES)[number];

/** Seconds between refreshes the page offers. */
export const REFRESH_CHOICES = [5, 15, 30, 60, 300] as const;
export type RefreshSeconds = (typeof REFRESH_CHOICES)[number];

export interface ViewState {
  apiId: string;
  range: Range;
  granularity: GranularityChoice;
  externalId: string;
  keyIds: string[];
  tags: string[];
  refresh: RefreshSeconds;
}

export const DEFAULT_VIEW: ViewState = {
  apiId: '',
  range: '24h',
  granularity: 'auto',
  externalId: '',
  keyIds: [],
  tags: [],
  refresh: 15,
};

function oneOf<T extends string | number>(choices: readonly T[], raw: string | null, fallback: T): T {
  return choices.find((c) => String(c) === raw) ?? fallback;
}

/** Splits a list the way the API does (repeats and commas), dropping empty items and repeats. */
export function splitList(values: readonly string[]): string[] {
  const items = values.flatMap((v) => v.split(',')).map((v) => v.trim());
  return [...new Set(items.filter((v) => v.length > 0))];
}

/** Reads a view from a hash such as `#apiId=api_1&range=7d&keyId=a&keyId=b`; unknown values fall back. */
export function parseHash(hash: string): ViewState {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  return {
    apiId: p.get('apiId')?.trim() ?? DEFAULT_VIEW.apiId,
    range: oneOf(RANGES, p.get('range'), DEFAULT_VIEW.range),
    granularity: oneOf(GRANULARITY_CHOICES, p.get('granularity'), DEFAULT_VIEW.granularity),
    externalId: p.get('externalId') ?? DEFAULT_VIEW.externalId,
    keyIds: splitList(p.getAll('keyId')),
    tags: splitList(p.getAll('tag')),
    refresh: oneOf(REFRESH_CHOICES, p.get('refresh'), DEFAULT_VIEW.refresh),
  };
}

/** The hash for a view; values equal to the defaults are left out to keep shared links short. */
export function formatHash(view: ViewState): string {
  const p = new URLSearchParams();
  if (view.apiId) p.set('apiId', view.apiId);
  if (view.range !== DEFAULT_VIEW.range) p.set('range', view.range);
  if (view.granularity !== DEFAULT_VIEW.granularity) p.set('granularity', view.granularity);
  if (view.externalId) p.set('externalId', view.externalId);
  for (const k of view.keyIds) p.append('keyId', k);
  for (const t of view.tags) p.append('tag', t);
  if (view.refresh !== DEFAULT_VIEW.refresh) p.set('refresh', String(view.refresh));
  const text = p.toString();
  return text ? `#${text}` : '';
}

/**
 * Minute slices up to 3 hours (the live view; the API keeps minutes for 48 hours: docs/api.md#minute-slices),
 * hours up to a week, days up to ~3 months, months beyond: a readable number of bars. A choice of minutes
 * over a longer range falls back to that rule.
 */
export function effectiveGranularity(view: ViewState): Granularity {
  const ms = RANGE_MS[view.range];
  const minutes = ms <= RANGE_MS['3h'];
  if (view.granularity !== 'auto' && (view.granularity !== 'minute' || minutes)) return view.granularity;
  if (minutes) return 'minute';
  if (ms <= RANGE_MS['7d']) return 'hour';
  if (ms <= RANGE_MS['90d']) return 'day';
  return 'month';
}
