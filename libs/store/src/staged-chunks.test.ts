import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiIncrements, BucketIncrements } from './aggregate';
import { stageIncrements, writeCount, WRITES } from './staged-chunks';

/**
 * A chunk read back as applyStagedChunk-5.lua reads it: (r, t, expireAt, suffix, field) -> increment,
 * (r, t, expireAt, suffix) -> the parts appended, and the writes it makes (staged-chunks.ts WRITES).
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
  expect(n).toBe(tokens.length);
  expect(p).toBe(newline < 0 ? 0 : bytes.length);
  return { fields, parts, writes };
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

  it('keeps chunks of the bound when writes the call makes anyway fill it (alert counters)', () => {
    const fields = new Map(Array.from({ length: 100 }, (_, n) => [`${n.toString(36)}:0`, 1]));
    const inc = {
      buckets: [{ r: 'h' as const, t: 1, expireAt: 0, cubes: new Map([['k:0', fields]]), parts: new Map() }],
    };
    const { buckets, chunks } = stageIncrements(inc, 50, 80);
    expect(buckets).toEqual([]);
    // 100 fields + a cube and a bucket per chunk, in chunks of about 50 writes: 3, not 100.
    expect(chunks).toHaveLength(3);
    expect(chunks.map((chunk) => parseChunk(chunk).fields.size).reduce((a, b) => a + b)).toBe(100);
    expect(stageIncrements(inc, 200, 50).chunks).toEqual([]);
    expect(stageIncrements(inc, 200, 150).chunks).toHaveLength(1);
    // What the call was given before: the bound less the reserved writes, a chunk per field.
    expect(stageIncrements(inc, Math.max(0, 50 - 80)).chunks).toHaveLength(100);
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
