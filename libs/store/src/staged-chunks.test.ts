import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiIncrements, BucketIncrements } from './aggregate';
import { fieldCount, stageIncrements } from './staged-chunks';

/** A chunk read back as applyStagedChunk-5.lua reads it: (r, t, expireAt, suffix, field) -> increment. */
function parseChunk(chunk: string): { fields: Map<string, number>; count: number } {
  const tokens = chunk.split(' ');
  expect(tokens.every((t) => t.length > 0)).toBe(true);
  let n = 0;
  const next = () => tokens[n++]!;
  const fields = new Map<string, number>();
  let count = 0;
  for (let b = Number(next()); b > 0; b--) {
    const [r, t, expireAt, cubes] = [next(), next(), next(), Number(next())];
    for (let c = 0; c < cubes; c++) {
      const suffix = next();
      for (let f = Number(next()); f > 0; f--) {
        const id = `${r} ${t} ${expireAt} ${suffix} ${next()}`;
        fields.set(id, (fields.get(id) ?? 0) + Number(next()));
        count++;
      }
    }
  }
  expect(n).toBe(tokens.length);
  return { fields, count };
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
  parts: fc.constantFrom(new Map<string, Buffer>(), new Map([['L:f', Buffer.from('part')]])),
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
    expect(stageIncrements(inc, 1)).toEqual({ buckets: inc.buckets, chunks: [] });
  });

  it('stages every hour field once, in chunks of at most the bound, and keeps rollups and parts in the call', () => {
    fc.assert(
      fc.property(fc.array(bucket, { maxLength: 8 }), fc.integer({ min: 1, max: 60 }), (buckets, max) => {
        const inc: Pick<ApiIncrements, 'buckets'> = { buckets };
        const { buckets: kept, chunks } = stageIncrements(inc, max);
        if (fieldCount(inc) <= max) {
          expect(chunks).toEqual([]);
          return;
        }
        const staged = new Map<string, number>();
        for (const chunk of chunks) {
          const { fields, count } = parseChunk(chunk);
          expect(count).toBeGreaterThan(0);
          expect(count).toBeLessThanOrEqual(max);
          for (const [id, n] of fields) {
            expect(staged.has(id)).toBe(false);
            staged.set(id, n);
          }
        }
        expect(staged).toEqual(fieldsOf(buckets, (b) => b.r === 'h'));
        // The call keeps the rollups whole, and every section part.
        expect(fieldsOf(kept)).toEqual(fieldsOf(buckets, (b) => b.r !== 'h'));
        const partsOf = (list: readonly BucketIncrements[]) =>
          list.filter((b) => b.parts.size > 0).map((b) => `${b.r}${b.t}`);
        expect(partsOf(kept)).toEqual(partsOf(buckets));
      }),
      { numRuns: 200 },
    );
  });
});
