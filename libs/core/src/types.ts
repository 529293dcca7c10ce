import type { Granularity, OrderBy } from '@va/contracts';

/** A getVerifications query after parsing and validation (docs/api.md#parameters). Pure data. */
export interface ParsedQuery {
  apiId: string;
  externalId?: string;
  /** Deduplicated; absent = every key. */
  keyIds?: string[];
  /** Deduplicated; absent = no tag filter. An event matches when its tag set contains all of them. */
  tags?: string[];
  /** Deduplicated; absent = no region filter. An event matches when its region is one of them. */
  regions?: string[];
  /** Hour index (floor(ms / 3_600_000)) of trunc(start); absent = from the first slice holding data. */
  startHour?: number;
  /** Hour index of trunc(end); end defaults to the server's now. Inclusive. */
  endHour: number;
  /**
   * groupBy=minute only (and then always): minute indices (floor(ms / 60_000)) of trunc(start) and trunc(end),
   * inclusive, within the minute retention (docs/api.md#minute-slices); startHour and endHour are their hours.
   */
  minutes?: { start: number; end: number };
  /**
   * IANA zone of the day and month slices (libs/core/src/calendar.ts); absent = UTC, and a
   * zone that is UTC under another name (Etc/UTC, GMT) is absent too.
   */
  timeZone?: string;
  /**
   * Not parsed: the number (1–3) of the API's billing zone that `timeZone` is, when it is one (the query
   * service sets it from the API's declared zones; docs/api.md#billing-zones). The oracle ignores it.
   */
  billingZone?: number;
  groupBy: {
    key: boolean;
    identity: boolean;
    tag: boolean;
    tags: boolean;
    /** Set (true) only when grouping by region: absent = false. */
    region?: boolean;
    granularity?: Granularity;
  };
  limit?: number;
  orderBy?: OrderBy;
  /** As given; absent = asc. Without orderBy, desc reverses the default order. */
  order?: 'asc' | 'desc';
}

export interface Identity {
  id: string;
  externalId: string;
}

/**
 * Counts of one combination of group dimensions in one time slice, as a reader of
 * stored counters (or the oracle) produces them. Filters are already applied;
 * only the dimensions the query groups by need to be present.
 */
export interface Cell {
  /** Start (unix ms) of the slice the counts belong to; null without a time granularity. */
  slice: number | null;
  keyId?: string;
  identity?: Identity;
  /** The event's tag set, sorted, deduplicated. */
  tags?: readonly string[];
  /** The event's region; absent = none (left out of groupBy=region). */
  region?: string;
  /** Nine counts in OUTCOMES order. */
  counts: readonly number[];
}
