/**
 * Step 4: the rules that involve more than one value, which a schema cannot say
 * (docs/api.md#errors). They run only on parameters that passed the schema, so one bad value
 * never causes a second, derived error.
 */
import { GRANULARITIES, type FieldError, type Granularity, type VerificationsQuery } from '@va/contracts';

const isGranularity = (g: string): g is Granularity => (GRANULARITIES as readonly string[]).includes(g);

/**
 * `query` holds the parameters that passed the schema; `failed` names those that did not
 * (they are absent from `query` but must not be mistaken for absent from the request).
 */
export function crossFieldErrors(
  query: Partial<VerificationsQuery>,
  failed: ReadonlySet<string>,
  now: number,
): FieldError[] {
  const errors: FieldError[] = [];
  const groupBy = query.groupBy;
  if (groupBy) {
    const granularities = new Set(groupBy.filter(isGranularity));
    if (granularities.size > 1) {
      errors.push({
        location: 'query.groupBy',
        message: `groupBy takes at most one of hour, day, month; got ${[...granularities].join(', ')}`,
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
      fix: 'add groupBy=hour, day or month, or order by another field',
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
  return errors;
}
