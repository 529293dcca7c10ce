/**
 * `--time-zone <zone>` of `api register|update` and `alerts rules create`: checked by libs/core checkTimeZone,
 * the check of the query's timeZone parameter, and given on as the name checkTimeZone answers.
 */
import { checkTimeZone } from '@va/core';
import { UsageError } from '../usage-error';

export function timeZoneOption(value: string): string {
  const check = checkTimeZone(value, '--time-zone');
  if (check.ok) return check.zone;
  throw new UsageError(
    `${check.message}: give a zone such as America/New_York, Europe/Berlin or Asia/Kolkata (an offset such as +05:30 is not a zone name)`,
  );
}
