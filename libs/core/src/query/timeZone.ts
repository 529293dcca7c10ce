/**
 * Time zone names wherever one is given (docs/api.md#time-zones): the `timeZone` query parameter, an API's
 * default zone (`api register|update --time-zone`) and an alert rule's zone. One check for all of them: an
 * IANA zone name the platform knows, any letter case; offsets such as +05:30 are not zone names. Whether a
 * text names a zone only Intl can tell.
 */
import type { FieldError } from '@va/contracts';
import { resolveTimeZone, UTC } from '../calendar';
import type { ParsedQuery } from '../types';

function shown(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/** Zones a fix names as examples. */
export const ZONE_EXAMPLES = 'America/New_York, Europe/Berlin or Asia/Kolkata';

export type TimeZoneCheck =
  | { ok: true; /** The zone's name as stored and reported (nameOfZone). */ zone: string }
  | {
      ok: false;
      /** Names `field`: what the caller calls the value (timeZone, --time-zone). */ message: string;
    };

/**
 * The name a valid zone is stored and reported under: 'UTC' for UTC under any name, the zone database's
 * spelling where it resolves the name to itself in another letter case (america/new_york ->
 * America/New_York), else the name as given. Not the resolved id itself: ICU answers legacy ids for some
 * zones (Asia/Kolkata -> Asia/Calcutta, Europe/Kyiv -> Europe/Kiev), which is not the name a user chose.
 */
function nameOfZone(value: string, resolved: string): string {
  return resolved === UTC || resolved.toLowerCase() === value.toLowerCase() ? resolved : value;
}

/** The one check of a time zone name; `field` is how the caller's user named the value. */
export function checkTimeZone(value: string, field: string): TimeZoneCheck {
  const resolved = resolveTimeZone(value);
  if (resolved !== null) return { ok: true, zone: nameOfZone(value, resolved) };
  return { ok: false, message: `${field} must be an IANA time zone name; got ${shown(value)}` };
}

/** One error when `value` (a timeZone that passed the schema) is no zone name; none when absent. */
export function timeZoneErrors(value: string | undefined, location = 'query.timeZone'): FieldError[] {
  if (value === undefined) return [];
  const check = checkTimeZone(value, 'timeZone');
  if (check.ok) return [];
  return [
    {
      location,
      message: check.message,
      fix:
        location === 'query.timeZone'
          ? `send a zone such as ${ZONE_EXAMPLES}, or leave timeZone out for the API's default zone (UTC unless set)`
          : `send a zone such as ${ZONE_EXAMPLES}, or leave timeZone out for the API's default zone`,
    },
  ];
}

/**
 * The ParsedQuery's zone: the name as given, or undefined for UTC under any name, so that
 * `timeZone=UTC` plans and answers exactly as no timeZone. Only called on a valid value.
 */
export function zoneOfQuery(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return resolveTimeZone(value) === UTC ? undefined : value;
}

/** The name of the zone a query is answered in (the header X-Time-Zone; nameOfZone): 'UTC' when it has none. */
export function zoneNameOf(zone: string | undefined): string {
  if (zone === undefined) return UTC;
  const resolved = resolveTimeZone(zone);
  return resolved === null ? zone : nameOfZone(zone, resolved);
}

/** Whether a query string names a timeZone (UTC included); without one, the API's default zone applies. */
export function namesTimeZone(params: Iterable<[string, string]>): boolean {
  for (const [name] of params) if (name === 'timeZone') return true;
  return false;
}

/**
 * A query that named no timeZone, in its API's default zone (docs/api.md#time-zones); an explicit timeZone,
 * UTC included, wins, so only call this when namesTimeZone said none was given.
 */
export function withDefaultTimeZone(query: ParsedQuery, defaultZone: string | undefined): ParsedQuery {
  const timeZone = zoneOfQuery(defaultZone);
  return timeZone === undefined ? query : { ...query, timeZone };
}
