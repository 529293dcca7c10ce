/**
 * The rebuild's consumer: the ingest worker itself, replaying both topics into g' in a child process
 * (replay-worker.ts says what it does and why it is a process of its own). This side starts it with
 * the ingest service's Node flags and environment (infra/lib/service-runtime.mjs, as `npm start`, the
 * bench and docker-compose start the service), waits until it consumes, and stops it.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeFlagsOf, serviceEnvOf } from '@va/infra/service-runtime';

/** What replay-worker.ts is started with (its one argument, as JSON). */
export interface ReplayWorkerOptions {
  group: string;
  generation: number;
  /** --since: the boundary (unix ms) before which the copy carried events over; null = full rebuild. */
  boundary: number | null;
}

/** The IPC messages between the rebuild and its replay process. */
export type ReplayMessage =
  | { kind: 'started' }
  | { kind: 'fatal'; message: string }
  | { kind: 'refused'; counts: [string, number][] }
  | { kind: 'stop' };

export interface RebuildConsumer {
  /** Records the replay refused (already dead-lettered when they were new), per reason; known after close(). */
  refused: Map<string, number>;
  /** Set when the consumer crashed for good (or its process ended unasked). */
  fatal(): Error | undefined;
  /** Finishes the batch in flight, leaves the group, ends the process. */
  close(): Promise<void>;
}

export async function startRebuildConsumer(options: ReplayWorkerOptions): Promise<RebuildConsumer> {
  // Bundled (tools/cli/dist/main.js) the entry is dist/replay-worker.js (infra/lib/build.mjs bundles
  // every *-worker.ts); from the TypeScript sources it runs through tsx.
  const typescript = import.meta.url.endsWith('.ts');
  const entry = fileURLToPath(new URL(`./replay-worker.${typescript ? 'ts' : 'js'}`, import.meta.url));
  const child = spawn(
    process.execPath,
    [
      ...nodeFlagsOf('ingest'),
      ...(typescript ? ['--import', 'tsx'] : []),
      '--enable-source-maps',
      entry,
      JSON.stringify(options),
    ],
    {
      env: { ...process.env, ...serviceEnvOf('ingest') },
      // Its own process group: a Ctrl-C on the terminal reaches only the CLI, which stops it in order.
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const refused = new Map<string, number>();
  let fatal: Error | undefined;
  let stopRequested = false;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    child.on('message', (message: ReplayMessage) => {
      if (message.kind === 'started') resolve();
      else if (message.kind === 'fatal') reject((fatal ??= new Error(`replay: ${message.message}`)));
      else if (message.kind === 'refused') for (const [reason, n] of message.counts) refused.set(reason, n);
    });
    child.once('error', (err) => reject((fatal ??= err)));
    void exited.then((code) => {
      if (!stopRequested) fatal ??= new Error(`the replay process exited (code ${code}) unasked`);
      reject(fatal ?? new Error(`the replay process exited (code ${code}) before it consumed`));
    });
  });
  const close = async (): Promise<void> => {
    stopRequested = true;
    if (child.exitCode === null && child.signalCode === null && child.connected) {
      child.send({ kind: 'stop' } satisfies ReplayMessage);
    }
    await exited;
  };
  try {
    await started;
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    throw err;
  }
  return { refused, fatal: () => fatal, close };
}
