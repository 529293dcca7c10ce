/**
 * The `timeZone` parameter (docs/api.md#time-zones): an IANA zone name the platform knows, any
 * letter case. The schema takes any text; whether it names a zone only Intl can tell.
 */
import type { FieldError } from '@va/contracts';
import { resolveTimeZone, UTC } from '../calendar';

function shown(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/** One error when `value` (a timeZone that passed the schema) is no zone name; none when absent. */
export function timeZoneErrors(value: string | undefined): FieldError[] {
  if (value === undefined || resolveTimeZone(value) !== null) return [];
  return [
    {
      location: 'query.timeZone',
      message: `timeZone must be an IANA time zone name; got ${shown(value)}`,
      fix: 'send a zone such as America/New_York, Europe/Berlin or Asia/Kolkata, or leave timeZone out for UTC',
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
