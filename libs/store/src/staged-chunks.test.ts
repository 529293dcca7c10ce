import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiIncrements, BucketIncrements } from './aggregate';
import type { AlertCounterIncrements, AlertIncrements } from './alert-detection';
import { alertWrites, stageIncrements, writeCount, WRITES } from './staged-chunks';

/**
 * A chunk read back as applyStagedChunk-5.lua reads it: (r, t, expireAt, suffix, field) -> increment,
 * (r, t, expireAt, suffix) -> the parts appended, the alert members (counterId, period, periodStart, expireAt,
 * levels, member) -> increment with the rules version and clock, and the writes it makes (staged-chunks.ts WRITES).
 */
function parseChunk(chunk: string | Buffer) {
  const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
  const newline = bytes.indexOf('\n');
  const tokens = bytes
    .subarray(0, newline < 0 ? bytes.length : newline)
    .toString()
    .split(' ');
  expect(tokens.every((t) => t.length > 0)).toBe(true);
  let n = 0;
  let p = newline + 1;
  const next = () => tokens[n++]!;
  const fields = new Map<string, number>();
  const parts = new Map<string, string[]>();
  let writes = 0;
  for (let b = Number(next()); b > 0; b--) {
    const [r, t, expireAt, cubes] = [next(), next(), next(), Number(next())];
    writes += WRITES.bucket;
    for (let c = 0; c < cubes; c++) {
      const suffix = next();
      writes += WRITES.cube;
      for (let f = Number(next()); f > 0; f--) {
        const id = `${r} ${t} ${expireAt} ${suffix} ${next()}`;
        fields.set(id, (fields.get(id) ?? 0) + Number(next()));
        writes += WRITES.field;
      }
    }
    for (let l = Number(next()); l > 0; l--) {
      const id = `${r} ${t} ${expireAt} ${next()}`;
      const length = Number(next());
      const section = bytes.subarray(p, p + length);
      p += length;
      parts.set(id, [...(parts.get(id) ?? []), section.toString('hex')]);
      writes += WRITES.part + Math.floor(length / WRITES.partBytes);
    }
  }
  const members = new Map<string, number>();
  let header: string | undefined;
  if (n < tokens.length) {
    const counters = Number(next());
    header = `${next()} ${next()}`;
    for (let c = 0; c < counters; c++) {
      const counter = [next(), next(), next(), next()];
      const levels = Array.from({ length: Number(next()) }, next);
      writes += 2 * WRITES.cube;
      for (let m = Number(next()); m > 0; m--) {
        const length = Number(next());
        const member = bytes.subarray(p, p + length).toString();
        p += length;
        const id = JSON.stringify([...counter, levels.join(','), member]);
        expect(members.has(id)).toBe(false);
        members.set(id, Number(next()));
        writes += WRITES.field;
      }
    }
  }
  expect(n).toBe(tokens.length);
  expect(p).toBe(newline < 0 ? 0 : bytes.length);
  return { fields, parts, members, header, writes };
}

function partsOf(buckets: readonly BucketIncrements[], only?: (b: BucketIncrements) => boolean) {
  const out = new Map<string, string[]>();
  for (const b of buckets) {
    if (only && !only(b)) continue;
    for (const [suffix, section] of b.parts)
      out.set(`${b.r} ${b.t} ${b.expireAt} ${suffix}`, [section.toString('hex')]);
  }
  return out;
}

function fieldsOf(buckets: readonly BucketIncrements[], only?: (b: BucketIncrements) => boolean) {
  const out = new Map<string, number>();
  for (const b of buckets) {
    if (only && !only(b)) continue;
    for (const [suffix, fields] of b.cubes) {
      for (const [field, n] of fields) out.set(`${b.r} ${b.t} ${b.expireAt} ${suffix} ${field}`, n);
    }
  }
  return out;
}

const bucket = fc.record({
  r: fc.constantFrom('h' as const, 'h' as const, 'd' as const, 'm' as const),
  t: fc.nat({ max: 500_000 }),
  expireAt: fc.constantFrom(0, 1_790_000_000_000),
  cubes: fc
    .uniqueArray(fc.constantFrom('t', 'k:0', 'k:1', 'i:0', 's:0', 'f:0', 'f:a'), { maxLength: 7 })
    .chain((suffixes) =>
      fc.tuple(
        ...suffixes.map((suffix) =>
          fc
            // Field names as the store writes them: "<code36>:<outcome>".
            .uniqueArray(fc.nat({ max: 5_000 }), { maxLength: 40 })
            .map(
              (codes) =>
                [suffix, new Map(codes.map((c, n) => [`${c.toString(36)}:${c % 9}`, n + 1]))] as const,
            ),
        ),
      ),
    )
    .map((entries) => new Map<string, Map<string, number>>(entries)),
  // Section parts are binary (newlines and spaces included), small or larger than the bound.
  parts: fc
    .uniqueArray(
      fc.tuple(
        fc.constantFrom('L:f', 'L:k', 'L:ks'),
        fc.oneof(
          fc.uint8Array({ maxLength: 40 }),
          fc.constant(new Uint8Array(3 * WRITES.partBytes).fill(10)),
        ),
      ),
      { maxLength: 3, selector: ([suffix]) => suffix },
    )
    .map((list) => new Map(list.map(([suffix, bytes]) => [suffix, Buffer.from(bytes)]))),
});

const counterOf = (counterId: string, members: number): AlertCounterIncrements => ({
  counterId,
  period: 'month',
  periodStart: 0,
  expireAt: 1_790_000_000_000,
  levels: [10, 100],
  members: new Map(Array.from({ length: members }, (_, n) => [`id ${n}`, 1 + (n % 3)])),
});
const alertsOf = (counters: AlertCounterIncrements[]): AlertIncrements => ({
  rulesVersion: 7,
  now: 1_700_000_000_000,
  counters,
});

describe('stageIncrements', () => {
  it('leaves increments within the bound as one call', () => {
    const inc = {
      buckets: [
        {
          r: 'h' as const,
          t: 1,
          expireAt: 0,
          cubes: new Map([['t', new Map([['0', 1]])]]),
          parts: new Map(),
        },
      ],
    };
    expect(stageIncrements(inc, writeCount(inc))).toEqual({ buckets: inc.buckets, chunks: [] });
    expect(stageIncrements(inc, writeCount(inc) - 1).chunks).toHaveLength(1);
  });

  it('keeps chunks of the bound when the alert members fill the call', () => {
    const fields = new Map(Array.from({ length: 100 }, (_, n) => [`${n.toString(36)}:0`, 1]));
    const inc = {
      buckets: [{ r: 'h' as const, t: 1, expireAt: 0, cubes: new Map([['k:0', fields]]), parts: new Map() }],
    };
    const alerts = alertsOf([counterOf('c1', 78)]);
    expect(alertWrites(alerts)).toBe(80);
    const { buckets, chunks, alerts: called } = stageIncrements(inc, 50, alerts);
    expect(buckets).toEqual([]);
    // The call: 2 writes of the counter and 48 of its members; the other 30 members are staged after the
    // hour's 100 fields (a bucket and a cube per chunk): chunks of at most 50 writes, not a chunk per field.
    expect(called!.counters.map((c) => c.members.size)).toEqual([48]);
    expect(chunks.map((chunk) => parseChunk(chunk).writes)).toEqual([50, 50, 15 + 2 + 30]);
    expect(chunks.map((chunk) => parseChunk(chunk).fields.size).reduce((a, b) => a + b)).toBe(100);
    expect(stageIncrements(inc, 200, alertsOf([counterOf('c1', 48)])).chunks).toEqual([]);
    expect(stageIncrements(inc, 200, alertsOf([counterOf('c1', 148)])).chunks).toHaveLength(1);
  });

  it('stages the alert members beyond the bound once each, in chunks of at most the bound, with the levels, version and clock', () => {
    const member = fc.oneof(
      fc.constant(''),
      fc.string({ maxLength: 6 }),
      fc.constantFrom('a b', 'é\n', 'x y\n'),
    );
    const counter = fc.record({
      counterId: fc.constantFrom('c1', 'c2', 'c3'),
      period: fc.constantFrom('day' as const, 'month' as const),
      periodStart: fc.nat({ max: 1_000 }),
      expireAt: fc.constant(1_790_000_000_000),
      levels: fc.uniqueArray(fc.integer({ min: 1, max: 9_007_199_254_740_991 }), { maxLength: 4 }),
      members: fc
        .uniqueArray(fc.tuple(member, fc.integer({ min: 1, max: 1_000_000 })), {
          maxLength: 60,
          selector: ([m]) => m,
        })
        .map((pairs) => new Map(pairs)),
    });
    const counters = fc.uniqueArray(counter, {
      maxLength: 5,
      selector: (c) => `${c.counterId}${c.period}${c.periodStart}`,
    });
    fc.assert(
      fc.property(counters, fc.integer({ min: 3, max: 60 }), (list, max) => {
        const alerts = alertsOf(list);
        const { chunks, alerts: called } = stageIncrements({ buckets: [] }, max, alerts);
        const all = new Map<string, number>();
        const idOf = (c: AlertCounterIncrements, m: string) =>
          JSON.stringify([
            c.counterId,
            c.period,
            String(c.periodStart),
            String(c.expireAt),
            c.levels.join(','),
            m,
          ]);
        for (const c of list) for (const [m, n] of c.members) all.set(idOf(c, m), n);
        const seen = new Map<string, number>();
        for (const c of called!.counters) for (const [m, n] of c.members) seen.set(idOf(c, m), n);
        expect(alertWrites(called)).toBeLessThanOrEqual(max);
        for (const chunk of chunks) {
          const { members, header, writes } = parseChunk(chunk);
          expect(writes).toBeLessThanOrEqual(max);
          expect(header).toBe('7 1700000000000');
          for (const [id, n] of members) {
            expect(seen.has(id)).toBe(false);
            seen.set(id, n);
          }
        }
        expect(seen).toEqual(all);
      }),
      { numRuns: 300 },
    );
  });

  it('10,000 alert members under a bound of 1,000: 10 staged chunks of at most 1,000 writes, the call at most 1,000', () => {
    const alerts = alertsOf([counterOf('c1', 5_000), counterOf('c2', 5_000)]);
    const { chunks, alerts: called } = stageIncrements({ buckets: [] }, 1_000, alerts);
    expect(alertWrites(called)).toBe(1_000);
    expect(chunks).toHaveLength(10);
    const writes = chunks.map((chunk) => parseChunk(chunk).writes);
    expect(Math.max(...writes)).toBeLessThanOrEqual(1_000);
    expect(chunks.map((chunk) => parseChunk(chunk).members.size).reduce((a, b) => a + b)).toBe(10_000 - 998);
  });

  it('keeps the rollups and the hour buckets that fit in the call, and stages every other field and part once, in chunks of about the bound', () => {
    // One bucket per (r, t), as aggregate.ts gives them (byBucket): two with the same key would be one bucket.
    const uniqueBuckets = fc.uniqueArray(bucket, { maxLength: 8, selector: (b) => `${b.r}${b.t}` });
    fc.assert(
      fc.property(uniqueBuckets, fc.integer({ min: 1, max: 60 }), (buckets, max) => {
        const inc: Pick<ApiIncrements, 'buckets'> = { buckets };
        const { buckets: kept, chunks } = stageIncrements(inc, max);
        if (writeCount(inc) <= max) {
          expect(chunks).toEqual([]);
          return;
        }
        const stagedFields = new Map<string, number>();
        const stagedParts = new Map<string, string[]>();
        for (const chunk of chunks) {
          const { fields, parts, writes } = parseChunk(chunk);
          expect(fields.size + parts.size).toBeGreaterThan(0);
          // A chunk closes once it reaches the bound: its last field may bring a new bucket and cube with it
          // (at most bucket + cube + field over), and a part larger than the bound is a chunk of its own.
          const single = fields.size === 0 && parts.size === 1 && [...parts.values()][0]!.length === 1;
          if (!single) expect(writes).toBeLessThan(max + WRITES.bucket + WRITES.cube + WRITES.field);
          for (const [id, n] of fields) {
            expect(stagedFields.has(id)).toBe(false);
            stagedFields.set(id, n);
          }
          for (const [id, list] of parts) stagedParts.set(id, [...(stagedParts.get(id) ?? []), ...list]);
        }
        const hour = (b: BucketIncrements) => b.r === 'h';
        // The call keeps the rollups whole, and the first hour buckets while they fit in the bound.
        const keptHours = kept.filter(hour);
        expect(kept.filter((b) => !hour(b))).toEqual(buckets.filter((b) => !hour(b)));
        expect(keptHours).toEqual(buckets.filter(hour).slice(0, keptHours.length));
        if (keptHours.length > 0) expect(writeCount({ buckets: kept })).toBeLessThanOrEqual(max);
        const stagedHours = buckets.filter(hour).slice(keptHours.length);
        expect(stagedFields).toEqual(fieldsOf(stagedHours));
        expect(stagedParts).toEqual(partsOf(stagedHours));
      }),
      { numRuns: 300 },
    );
  });
});
