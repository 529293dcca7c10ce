import { ReadPool } from '../src/verifications/read-pool';
import { loadConfig } from '@va/config';
import { parseQuery } from '@va/core';
const c = loadConfig({ REDIS_URL: 'redis://127.0.0.1:36001', REDIS_KEY_PREFIX: 'iso-medium' });
const pool = new ReadPool(1, {
  redisUrl: c.redisUrl,
  config: { keyPrefix: c.keyPrefix, maxRows: c.maxRows, retention: c.retention },
});
const p = parseQuery(
  new URLSearchParams('apiId=api_medium&groupBy=key&groupBy=tags&groupBy=hour&start=0&limit=1000'),
  { now: Date.now(), maxRows: 100000 },
);
try {
  const r = await pool.run(
    {
      space: { prefix: 'iso-medium', generation: 1 },
      query: (p as any).query,
      now: Date.now(),
      budgetMs: 50000,
    },
    new AbortController().signal,
  );
  console.log(r.ok, r.ok && new TextDecoder().decode(r.json).slice(0, 100));
} catch (e) {
  console.error('ERR', e);
}
await pool.close();
