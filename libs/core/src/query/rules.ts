/**
 * Step 4: the rules that involve more than one value, which a schema cannot say
 * (docs/api.md#errors). They run only on parameters that passed the schema, so one bad value
 * never causes a second, derived error.
 */
import { GRANULARITIES, type FieldError, type Granularity, type VerificationsQuery } from '@va/contracts';
import { firstMinuteKept, HOUR_MS, MINUTE_MS, minuteStart } from '../time';

const isGranularity = (g: string): g is Granularity => (GRANULARITIES as readonly string[]).includes(g);

/**
 * `query` holds the parameters that passed the schema; `failed` names those that did not
 * (they are absent from `query` but must not be mistaken for absent from the request).
 */
export function crossFieldErrors(
  query: Partial<VerificationsQuery>,
  failed: ReadonlySet<string>,
  now: number,
  minuteRetentionMs: number,
): FieldError[] {
  const errors: FieldError[] = [];
  const groupBy = query.groupBy;
  if (groupBy) {
    const granularities = new Set(groupBy.filter(isGranularity));
    if (granularities.size > 1) {
      errors.push({
        location: 'query.groupBy',
        message: `groupBy takes at most one of ${GRANULARITIES.join(', ')}; got ${[...granularities].join(', ')}`,
        fix: 'keep one time granularity',
      });
    }
    if (groupBy.includes('tag') && groupBy.includes('tags')) {
      errors.push({
        location: 'query.groupBy',
        message: 'groupBy tag and groupBy tags exclude each other',
        fix: 'use tag for one row per tag, or tags for one row per set of tags',
      });
    }
  }

  if (query.orderBy === 'time' && !failed.has('groupBy') && !groupBy?.some(isGranularity)) {
    errors.push({
      location: 'query.orderBy',
      message: 'orderBy=time needs a time granularity in groupBy',
      fix: 'add groupBy=minute, hour, day or month, or order by another field',
    });
  }

  // start > end compares the values as given (not their hours); end defaults to now.
  const start = query.start ?? undefined;
  const end = query.end ?? now;
  if (start !== undefined && !failed.has('end') && start > end) {
    errors.push({
      location: 'query.start',
      message:
        query.end == null
          ? `start (${start}) is after end (the server's current time, ${end})`
          : `start (${start}) is after end (${end})`,
      fix: 'send a start at or before end',
    });
  }
  if (groupBy?.includes('minute') && !failed.has('start')) {
    const error = minuteStartError(query.start ?? undefined, now, minuteRetentionMs);
    if (error) errors.push(error);
  }
  return errors;
}

/** A duration as an API error names it: "48 hours", "90 minutes". */
function duration(ms: number): string {
  if (ms % HOUR_MS === 0) return ms === HOUR_MS ? '1 hour' : `${ms / HOUR_MS} hours`;
  const minutes = Math.floor(ms / MINUTE_MS);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/**
 * groupBy=minute reads minute buckets, kept for the minute retention only (docs/api.md#minute-slices): the
 * range needs a start, in a minute still kept. No coarser bucket holds a minute, so an older start is an
 * error, not an answer with X-Precision.
 */
function minuteStartError(start: number | undefined, now: number, retentionMs: number): FieldError | null {
  // A retention of 0 keeps no minute at all: the worker counts none (not even the current one).
  if (retentionMs <= 0)
    return {
      location: 'query.start',
      message: 'minute slices are not kept on this server (its minute retention is 0)',
      fix: 'group by hour, day or month',
    };
  const first = minuteStart(firstMinuteKept(now, { minuteMs: retentionMs }));
  const kept = `minute slices are kept for ${duration(retentionMs)} (the minute retention)`;
  const fix = `send a start from ${first} on (unix ms), or group by hour, day or month`;
  if (start === undefined)
    return { location: 'query.start', message: `groupBy=minute needs a start: ${kept}`, fix };
  if (start >= first) return null;
  return {
    location: 'query.start',
    message: `start (${start}) is before the minute retention: ${kept}, from ${first} on`,
    fix,
  };
}
