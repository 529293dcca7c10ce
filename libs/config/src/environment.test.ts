import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '@va/infra/paths';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './index';
import { ENVIRONMENT, rawValue, readEnvironment } from './environment';

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
/** Variable names of the README's configuration table (rows starting with | `NAME` |). */
const documented = new Set([...README.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]));

describe('the environment table', () => {
  it('is the README configuration table: same variables, each with its default', () => {
    expect([...documented].sort()).toEqual(Object.keys(ENVIRONMENT).sort());
    for (const name of Object.keys(ENVIRONMENT) as (keyof typeof ENVIRONMENT)[]) {
      const fallback = ENVIRONMENT[name].fallback;
      if (typeof fallback !== 'string' || fallback === '') continue;
      const row = new RegExp(`^\\| \`${name}\` \\| \`([^\`]*)\``, 'm').exec(README);
      expect(row?.[1], name).toBe(fallback);
    }
  });

  it('derives defaults from other variables, and treats empty as unset', () => {
    expect(rawValue({ KAFKA_TOPIC: 'events' }, 'KAFKA_DLQ_TOPIC')).toBe('events.dlq');
    expect(rawValue({ KAFKA_TOPIC: '' }, 'KAFKA_TOPIC')).toBe('key-verifications');
    expect(readEnvironment({}).FIXED_NOW_MS).toBeUndefined();
    expect(readEnvironment({ FIXED_NOW_MS: '1700000000000' }).FIXED_NOW_MS).toBe(1_700_000_000_000);
  });

  it('names the variable it refuses', () => {
    expect(() => readEnvironment({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => readEnvironment({ COMPACTOR_CONCURRENCY: '0' })).toThrow(/COMPACTOR_CONCURRENCY/);
    expect(() => readEnvironment({ QUERY_SUBJECT_SHARE: '0' })).toThrow(/QUERY_SUBJECT_SHARE/);
    expect(() => readEnvironment({ QUERY_SUBJECT_SHARE: '1.5' })).toThrow(/QUERY_SUBJECT_SHARE/);
    expect(readEnvironment({ QUERY_SUBJECT_SHARE: '0.25' }).QUERY_SUBJECT_SHARE).toBe(0.25);
    expect(() => readEnvironment({ QUERY_ACCESS_LOG: 'sometimes' })).toThrow(/QUERY_ACCESS_LOG/);
    expect(() => readEnvironment({ QUERY_ACCESS_LOG: '1.5' })).toThrow(/QUERY_ACCESS_LOG/);
    expect(readEnvironment({}).QUERY_ACCESS_LOG).toBe(1);
    expect(readEnvironment({ QUERY_ACCESS_LOG: 'off' }).QUERY_ACCESS_LOG).toBe(0);
    expect(readEnvironment({ QUERY_ACCESS_LOG: '0.1' }).QUERY_ACCESS_LOG).toBe(0.1);
  });
});

describe('loadConfig', () => {
  it('shapes the table: retention in ms, brokers as a list, a program default under the environment', () => {
    const config = loadConfig(
      { KAFKA_BROKERS: 'a:1, b:2', RETENTION_HOURS_DAYS: '2' },
      { LOG_LEVEL: 'error' },
    );
    expect(config.kafkaBrokers).toEqual(['a:1', 'b:2']);
    expect(config.retention.hourMs).toBe(2 * 86_400_000);
    expect(config.logLevel).toBe('error');
    expect(loadConfig({ LOG_LEVEL: 'debug' }, { LOG_LEVEL: 'error' }).logLevel).toBe('debug');
    expect(loadConfig({}).logLevel).toBe('info');
  });

  it('refuses a rollup kept shorter than the buckets it sums, naming both variables', () => {
    expect(() => loadConfig({ RETENTION_HOURS_DAYS: '35', RETENTION_DAYS_DAYS: '30' })).toThrow(
      /RETENTION_DAYS_DAYS \(30\) must be at least RETENTION_HOURS_DAYS \(35\)/,
    );
    expect(() => loadConfig({ RETENTION_DAYS_DAYS: '2000' })).toThrow(
      /RETENTION_MONTHS_DAYS \(1830\) must be at least RETENTION_DAYS_DAYS \(2000\)/,
    );
    expect(loadConfig({ RETENTION_HOURS_DAYS: '400' }).retention.dayMs).toBe(400 * 86_400_000);
  });
});
