/** `api register`: makes an API known to its workspace before its first event (../program/api.ts parses). */
import { registerApi } from '@va/store';
import { withRedis } from './with-redis';

export interface RegisterApiOptions {
  workspace: string;
  api: string;
}

export async function registerApiCommand({ workspace, api }: RegisterApiOptions): Promise<number> {
  const result = await withRedis((redis, config) => registerApi(redis, config.keyPrefix, api, workspace));
  if (!result.ok) {
    process.stderr.write(`api: ${api} already belongs to another workspace\n`);
    return 1;
  }
  process.stdout.write(`${result.created ? 'registered' : 'already registered'} ${api} in ${workspace}\n`);
  return 0;
}
