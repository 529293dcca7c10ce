/**
 * `api register|update`: makes an API known to its workspace before its first event, and sets its default
 * time zone (docs/api.md#time-zones; ../program/api.ts parses).
 */
import { registerApi, setApiTimeZone } from '@va/store';
import { timeZoneOption } from './time-zone-option';
import { withRedis } from './with-redis';

export interface RegisterApiOptions {
  workspace: string;
  api: string;
  timeZone?: string | undefined;
}

export async function registerApiCommand({ workspace, api, timeZone }: RegisterApiOptions): Promise<number> {
  const zone = timeZone === undefined ? undefined : timeZoneOption(timeZone);
  const result = await withRedis((redis, config) =>
    registerApi(redis, config.keyPrefix, api, workspace, zone === undefined ? {} : { timeZone: zone }),
  );
  if (!result.ok) {
    process.stderr.write(`api: ${api} already belongs to another workspace\n`);
    return 1;
  }
  const inZone = zone === undefined ? '' : `, time zone ${zone}`;
  process.stdout.write(
    `${result.created ? 'registered' : 'already registered'} ${api} in ${workspace}${inZone}\n`,
  );
  return 0;
}

export interface UpdateApiOptions {
  api: string;
  timeZone: string;
}

export async function updateApiCommand({ api, timeZone }: UpdateApiOptions): Promise<number> {
  const zone = timeZoneOption(timeZone);
  const result = await withRedis((redis, config) => setApiTimeZone(redis, config.keyPrefix, api, zone));
  if (!result.ok) {
    process.stderr.write(`api: ${api} is not registered (api register --workspace <id> --api ${api})\n`);
    return 1;
  }
  process.stdout.write(`${api}: time zone ${zone} (was ${result.previous})\n`);
  return 0;
}
