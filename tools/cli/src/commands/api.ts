/** `api register --workspace <id> --api <apiId>`: makes an API known to its workspace before its first event. */
import { parseArgs } from 'node:util';
import { IDENTIFIER_PATTERN } from '@va/contracts';
import { registerApi } from '@va/store';
import { withRedis } from './with-redis';

export const usage = [
  '  api register --workspace <id> --api <apiId>',
  '      registers an API to a workspace before its first event',
].join('\n');

const identifier = new RegExp(IDENTIFIER_PATTERN);

function fail(message: string): number {
  process.stderr.write(`api: ${message}\n${usage}\n`);
  return 2;
}

async function register(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { workspace: { type: 'string' }, api: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) return fail(`unexpected argument ${positionals[0]}`);
  const { workspace, api } = values;
  if (workspace === undefined || !identifier.test(workspace))
    return fail('--workspace <id> is required (an identifier)');
  if (api === undefined || !identifier.test(api)) return fail('--api <apiId> is required (an identifier)');
  const result = await withRedis((redis, config) => registerApi(redis, config.keyPrefix, api, workspace));
  if (!result.ok) {
    process.stderr.write(`api: ${api} already belongs to another workspace\n`);
    return 1;
  }
  process.stdout.write(`${result.created ? 'registered' : 'already registered'} ${api} in ${workspace}\n`);
  return 0;
}

export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  try {
    if (sub === 'register') return await register(rest);
  } catch (err) {
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      return fail(err.message);
    }
    throw err;
  }
  return fail(sub === undefined ? 'missing subcommand' : `unknown subcommand ${sub}`);
}
