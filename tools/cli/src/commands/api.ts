/**
 * `api register|update`: makes an API known to its workspace before its first event, sets its default
 * time zone (docs/api.md#time-zones) and declares its billing zones (docs/api.md#billing-zones; ../program/api.ts
 * parses).
 */
import { MAX_BILLING_ZONES, resolveTimeZone } from '@va/core';
import {
  apiWorkspace,
  billingZonesOf,
  declareBillingZone,
  registerApi,
  setApiTimeZone,
  type RedisClient,
} from '@va/store';
import { UsageError } from '../usage-error';
import { timeZoneOption } from './time-zone-option';
import { withRedis } from './with-redis';

export interface RegisterApiOptions {
  workspace: string;
  api: string;
  timeZone?: string | undefined;
  billingZone?: string[] | undefined;
}

/** The --billing-zone values, checked before anything is written (exit 2 on an unknown zone). */
const billingZoneOptions = (values: string[] | undefined): string[] =>
  (values ?? []).map((value) => timeZoneOption(value, '--billing-zone'));

/** Declares the zones in order, one line each; false when the API's list was full (exit 1). */
async function declareZones(
  redis: RedisClient,
  prefix: string,
  api: string,
  zones: string[],
): Promise<boolean> {
  const listed = await billingZonesOf(redis, prefix, api);
  for (const given of zones) {
    // A zone listed under another spelling of the same zone (asia/kolkata, Asia/Kolkata) is that zone: its
    // edges are counted already, and a second number would count them twice.
    const zone = listed.find((z) => resolveTimeZone(z) === resolveTimeZone(given)) ?? given;
    const result = await declareBillingZone(redis, prefix, api, zone);
    if ('full' in result) {
      process.stderr.write(
        `api: ${api} already has ${MAX_BILLING_ZONES} billing zones; ${zone} not declared (zones cannot be removed)\n`,
      );
      return false;
    }
    if (result.added) listed.push(zone);
    const state = result.added ? 'declared' : 'already declared';
    process.stdout.write(`${api}: billing zone ${result.n} ${zone} ${state}\n`);
  }
  return true;
}

export async function registerApiCommand({
  workspace,
  api,
  timeZone,
  billingZone,
}: RegisterApiOptions): Promise<number> {
  const zone = timeZone === undefined ? undefined : timeZoneOption(timeZone);
  const billingZones = billingZoneOptions(billingZone);
  return withRedis(async (redis, config) => {
    const result = await registerApi(
      redis,
      config.keyPrefix,
      api,
      workspace,
      zone === undefined ? {} : { timeZone: zone },
    );
    if (!result.ok) {
      process.stderr.write(`api: ${api} already belongs to another workspace\n`);
      return 1;
    }
    const inZone = zone === undefined ? '' : `, time zone ${zone}`;
    process.stdout.write(
      `${result.created ? 'registered' : 'already registered'} ${api} in ${workspace}${inZone}\n`,
    );
    return (await declareZones(redis, config.keyPrefix, api, billingZones)) ? 0 : 1;
  });
}

export interface UpdateApiOptions {
  api: string;
  timeZone?: string | undefined;
  billingZone?: string[] | undefined;
}

export async function updateApiCommand({ api, timeZone, billingZone }: UpdateApiOptions): Promise<number> {
  const zone = timeZone === undefined ? undefined : timeZoneOption(timeZone);
  const billingZones = billingZoneOptions(billingZone);
  if (zone === undefined && billingZones.length === 0) {
    throw new UsageError('give --time-zone, --billing-zone, or both');
  }
  return withRedis(async (redis, config) => {
    const notRegistered = () => {
      process.stderr.write(`api: ${api} is not registered (api register --workspace <id> --api ${api})\n`);
      return 1;
    };
    if (zone !== undefined) {
      const result = await setApiTimeZone(redis, config.keyPrefix, api, zone);
      if (!result.ok) return notRegistered();
      process.stdout.write(`${api}: time zone ${zone} (was ${result.previous})\n`);
    } else if ((await apiWorkspace(redis, config.keyPrefix, api)) === null) return notRegistered();
    return (await declareZones(redis, config.keyPrefix, api, billingZones)) ? 0 : 1;
  });
}
