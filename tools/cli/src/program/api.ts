/** `api register`: bodies in ../commands/api.ts. */
import type { Command } from '@commander-js/extra-typings';
import { complete } from './action';
import { identifier } from './parsers';

export function registerApiCommands(program: Command): void {
  const api = program.command('api').description('manage the APIs of a workspace');

  api
    .command('register')
    .description(
      'register an API to a workspace before its first event (idempotent; exit 1 when the API ' +
        'already belongs to another workspace: an API never moves)',
    )
    .requiredOption('--workspace <id>', 'workspace that owns the API', identifier)
    .requiredOption('--api <apiId>', 'the API to register', identifier)
    .addHelpText('after', '\nExample:\n  npm run cli -- api register --workspace ws_demo --api api_demo')
    .action(async (options, command) => {
      const { registerApiCommand } = await import('../commands/api');
      await complete(command, () => registerApiCommand(options));
    });
}
