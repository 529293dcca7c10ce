/**
 * `--time-zone <zone>` of `api register|update` and `alerts rules create` (and `--billing-zone <zone>` of `api
 * register|update`, `option`): checked by libs/core checkTimeZone,
 * the check of the query's timeZone parameter, and given on as the name checkTimeZone answers.
 */
import { checkTimeZone } from '@va/core';
import { UsageError } from '../usage-error';

export function timeZoneOption(value: string, option = '--time-zone'): string {
  const check = checkTimeZone(value, option);
  if (check.ok) return check.zone;
  throw new UsageError(
    `${check.message}: give a zone such as America/New_York, Europe/Berlin or Asia/Kolkata (an offset such as +05:30 is not a zone name)`,
  );
}
