/**
 * Why the read pool has its own waiting line (src/verifications/fifo-pool.ts): ten clients keep one
 * worker thread busy with 3–9 ms tasks, each with a time budget, for 15 s, through piscina alone
 * (default, and with `stricterFIFO`) and through FifoPool. Prints the latency percentiles, the
 * longest wait and the tasks that ran out of budget.
 *
 *   npx tsx services/query/bench/pool-fairness.ts [--seconds 15] [--budget-ms 3000] [--clients 10]
 */
import { parseArgs } from 'node:util';
import { Piscina } from 'piscina';
import { FifoPool } from '../src/verifications/fifo-pool';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '15' },
    'budget-ms': { type: 'string', default: '3000' },
    clients: { type: 'string', default: '10' },
  },
});
const seconds = Number(values.seconds);
const budgetMs = Number(values['budget-ms']);
const clients = Number(values.clients);
const filename = new URL('../src/verifications/fixtures/busy-worker.mjs', import.meta.url).href;

type Run = (task: { id: number; ms: number }, signal: AbortSignal) => Promise<number>;

async function load(name: string, run: Run, close: () => Promise<void>): Promise<void> {
  const latencies: number[] = [];
  let overBudget = 0;
  let stop = false;
  let id = 0;
  const client = async () => {
    while (!stop) {
      const started = performance.now();
      try {
        await run({ id: id++, ms: 3 + Math.random() * 6 }, AbortSignal.timeout(budgetMs));
        latencies.push(performance.now() - started);
      } catch {
        overBudget++;
      }
    }
  };
  const timer = setTimeout(() => (stop = true), seconds * 1000);
  await Promise.all(Array.from({ length: clients }, client));
  clearTimeout(timer);
  await close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!.toFixed(0);
  console.log(
    `| ${name} | ${latencies.length} | ${at(0.5)} | ${at(0.99)} | ${latencies.at(-1)!.toFixed(0)} | ${overBudget} |`,
  );
}

console.log(`${clients} clients, one worker, ${seconds} s each, budget ${budgetMs} ms\n`);
console.log('| pool | answered | p50 ms | p99 ms | max ms | over budget |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const stricterFIFO of [false, true]) {
  const pool = new Piscina({ filename, minThreads: 1, maxThreads: 1, stricterFIFO });
  await load(
    `piscina${stricterFIFO ? ' stricterFIFO' : ''}`,
    (task, signal) => pool.run(task, { signal }),
    () => pool.close({ force: true }),
  );
}
const fifo = new FifoPool<{ id: number; ms: number }, number>({ filename, threads: 1 });
await load(
  'FifoPool',
  (task, signal) => fifo.run(task, signal),
  () => fifo.close(),
);
