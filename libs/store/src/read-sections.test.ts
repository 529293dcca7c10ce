import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OUTCOME_COUNT } from '@va/contracts';
import { TOTAL } from '@va/core';
import { CodeCounts } from './read-fields';
import { compactCounts, ROLES, SectionSums, type SectionSelection } from './read-sections';
import { NO_IDENTITY, SectionRows, type Section, type SectionCube } from './section/codec';

/** The plainest sum: every row, every filter by Set, the group name built per row. */
function naive(sections: [number | null, Section, 1 | -1][], sel: SectionSelection): CodeCounts {
  const out = new CodeCounts();
  for (const [slice, section, sign] of sections) {
    const roles = ROLES[section.cube];
    for (let r = 0; r < section.rows; r++) {
      const code = (role: 'k' | 'i' | 's') => section.dims[roles.indexOf(role)]![r]!;
      const filters = { k: sel.keys, i: sel.identities, s: sel.sets };
      if (roles.some((role) => filters[role] !== null && !filters[role]!.includes(code(role)))) continue;
      if (sel.group.identity && code('i') === NO_IDENTITY) continue;
      const name = [
        sel.group.key ? code('k').toString(36) : '',
        sel.group.identity ? code('i').toString(36) : '',
        sel.group.set ? code('s').toString(36) : '',
      ].join('.');
      const into = out.slice(slice);
      const counts = into.get(name) ?? new Array<number>(OUTCOME_COUNT).fill(0);
      for (let o = 0; o < OUTCOME_COUNT; o++) counts[o]! += sign * section.counts[r * OUTCOME_COUNT + o]!;
      into.set(name, counts);
    }
  }
  return out;
}

const sorted = (counts: CodeCounts) =>
  [...counts.slices]
    .filter(([, groups]) => groups.size > 0) // an empty slice yields no cell
    .map(([slice, groups]) => [String(slice), [...groups].sort(([a], [b]) => (a < b ? -1 : 1))] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1));

// Small codes (dense sums, composite numbers) and large ones (past 2^17 and 2^20: by name).
const code = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 2 ** 22 }));
const identity = fc.oneof(code, fc.constant(NO_IDENTITY));

describe('SectionSums', () => {
  it('sums like the plainest loop, for every cube, filter and grouping (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<SectionCube>('t', 'k', 'i', 's', 'x', 'f'),
        fc.array(
          fc.record({
            slice: fc.constantFrom(null, 0, 3_600_000),
            sign: fc.constantFrom<1 | -1>(1, 1, -1),
            rows: fc.array(
              fc.record({
                i: identity,
                k: code,
                s: code,
                outcome: fc.integer({ min: 0, max: OUTCOME_COUNT - 1 }),
                n: fc.integer({ min: 1, max: 1000 }),
              }),
              { maxLength: 40 },
            ),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        fc.record({
          keys: fc.option(fc.array(code, { maxLength: 300 })),
          identities: fc.option(fc.array(code, { maxLength: 300 })),
          sets: fc.option(fc.array(code, { maxLength: 5 })),
          group: fc.record({ key: fc.boolean(), identity: fc.boolean(), set: fc.boolean() }),
        }),
        // A top-N query (ranked, then summed for its largest groups only) over delta groups
        // already in the counts, as readCounts has them.
        fc.option(
          fc.record({
            counter: fc.integer({ min: 0, max: TOTAL }),
            limit: fc.integer({ min: 1, max: 6 }),
            delta: fc.array(
              fc.record({
                k: fc.integer({ min: 0, max: 12 }),
                i: fc.integer({ min: 0, max: 12 }),
                s: fc.integer({ min: 0, max: 12 }),
                slice: fc.constantFrom(null, 0, 3_600_000),
                counts: fc.array(fc.integer({ min: -50, max: 1000 }), {
                  minLength: OUTCOME_COUNT,
                  maxLength: OUTCOME_COUNT,
                }),
              }),
              { maxLength: 8 },
            ),
          }),
        ),
        (cube, parts, wanted, top) => {
          const roles = ROLES[cube];
          // Only what the cube holds can be filtered or grouped by.
          const sel: SectionSelection = {
            keys: roles.includes('k') ? wanted.keys : null,
            identities: roles.includes('i') ? wanted.identities : null,
            sets: roles.includes('s') ? wanted.sets : null,
            group: {
              key: roles.includes('k') && wanted.group.key,
              identity: roles.includes('i') && wanted.group.identity,
              set: roles.includes('s') && wanted.group.set,
            },
          };
          const sections = parts.map(({ slice, sign, rows }, n): [number | null, Section, 1 | -1] => {
            const builder = new SectionRows(cube);
            for (const row of rows)
              builder.add(
                roles.map((role) => row[role]),
                row.outcome,
                row.n,
              );
            return [slice, builder.toSection(n + 1), sign];
          });
          const sums = new SectionSums(sel, top ?? undefined);
          // As decoded, and as cached (counts in 32 bits).
          sections.forEach(([slice, section, sign], n) =>
            sums.add(slice, n % 2 === 0 ? section : compactCounts(section), sign),
          );
          const got = new CodeCounts();
          const want = naive(sections, sel);
          for (const d of top?.delta ?? []) {
            const name = [
              sel.group.key ? d.k.toString(36) : '',
              sel.group.identity ? d.i.toString(36) : '',
              sel.group.set ? d.s.toString(36) : '',
            ].join('.');
            for (const into of [got.slice(d.slice), want.slice(d.slice)]) {
              const counts = into.get(name) ?? new Array<number>(OUTCOME_COUNT).fill(0);
              into.set(
                name,
                counts.map((c, o) => c + d.counts[o]!),
              );
            }
          }
          sums.addTo(got);
          if (top) {
            got.keepLargest(top);
            want.keepLargest(top);
          }
          expect(sorted(got)).toEqual(sorted(want));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('sums large sections and narrow reads of wide codes like the plainest loop (property)', () => {
    // Past 4,096 rows a section is summed without a look at its codes; below, one identity's few
    // rows with codes spread up to 2^22 go to the map, many rows with small codes to the dense array.
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom(4_000, 5_000),
        fc.constantFrom(50, 20_000, 2 ** 22),
        fc.record({ key: fc.boolean(), identity: fc.boolean(), set: fc.boolean() }),
        fc.boolean(),
        (seed, rows, maxCode, group, oneIdentity) => {
          let state = seed || 1;
          const next = (bound: number) => {
            state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
            return state % bound;
          };
          const builder = new SectionRows('f');
          for (let n = 0; n < rows; n++)
            builder.add([next(40), next(maxCode), next(maxCode)], next(OUTCOME_COUNT), 1 + next(9));
          const sections: [number | null, Section, 1 | -1][] = [
            [0, builder.toSection(1), 1],
            [0, builder.toSection(2), 1],
          ];
          const sel: SectionSelection = {
            keys: null,
            identities: oneIdentity ? [next(40)] : null,
            sets: null,
            group,
          };
          const sums = new SectionSums(sel);
          for (const [slice, section, sign] of sections) sums.add(slice, compactCounts(section), sign);
          const got = new CodeCounts();
          sums.addTo(got);
          expect(sorted(got)).toEqual(sorted(naive(sections, sel)));
        },
      ),
      { numRuns: 30 },
    );
  });

  it('ranks a top-N by section and delta together, a subtracted section included', () => {
    // Identity 0: its delta alone (600) would beat identity 1 (500), but a subtracted section
    // takes 1,000 away: only identity 1 is among the first row.
    const i = new SectionRows('i');
    i.add([0], 0, 1000);
    const sums = new SectionSums(
      { keys: null, identities: null, sets: null, group: { key: false, identity: true, set: false } },
      { counter: TOTAL, limit: 1 },
    );
    sums.add(null, compactCounts(i.toSection(1)), -1);
    const counts = new CodeCounts();
    const delta = (n: number) => [n, 0, 0, 0, 0, 0, 0, 0, 0];
    counts.slice(null).set('.0.', delta(600));
    counts.slice(null).set('.1.', delta(500));
    sums.addTo(counts);
    counts.keepLargest({ counter: TOTAL, limit: 1 });
    expect([...counts.slice(null)]).toEqual([['.1.', delta(500)]]);
  });

  it('keeps counts in 32 bits only when every count fits', () => {
    const t = new SectionRows('t');
    t.add([], 0, 2 ** 32 - 1);
    expect(compactCounts(t.toSection(1)).counts).toBeInstanceOf(Uint32Array);
    t.add([], 1, 2 ** 32);
    expect(compactCounts(t.toSection(1)).counts).toBeInstanceOf(Float64Array);
  });

  it('refuses a selection the section cannot answer', () => {
    const k = new SectionRows('k');
    k.add([1], 0, 1);
    const sums = new SectionSums({
      keys: null,
      identities: [1],
      sets: null,
      group: { key: false, identity: false, set: false },
    });
    expect(() => sums.add(null, k.toSection(1), 1)).toThrow(/cannot filter by i/);
  });
});
