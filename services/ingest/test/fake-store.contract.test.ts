// The StorePort contract (store-port-contract.ts) against the in-memory fake the core's unit tests use,
// and proof that the contract catches a fake whose CAS rule is planted wrong.
import { describe, expect, it } from 'vitest';
import type { PlannedApply } from '../src/core/ports';
import { FakeStore } from './fake-store';
import { STORE_PORT_CONTRACT, type ContractCase, type ContractStore } from './store-port-contract';

function contractStore(store: FakeStore): ContractStore {
  return {
    store,
    space: { prefix: 'contract', generation: store.generation },
    setCompactedThrough: (apiId, hour) => Promise.resolve(void store.cmps.set(apiId, hour)),
    retire: (apiId) => Promise.resolve(void store.retired.add(apiId)),
    createAlertRule: (rule) => Promise.resolve(store.createAlertRule(rule)),
    crossings: (apiId) => Promise.resolve(store.crossings.get(apiId) ?? []),
    declareBillingZone: (apiId, zone) =>
      Promise.resolve(void store.billingZones.set(apiId, [...(store.billingZones.get(apiId) ?? []), zone])),
    billingZoneSince: (apiId) => {
      const out = new Map<number, number>();
      for (const [key, since] of store.billingZoneSinces) {
        const [generation, api, n] = key.split('|');
        if (Number(generation) === store.generation && api === apiId) out.set(Number(n), since);
      }
      return Promise.resolve(out);
    },
  };
}

describe('StorePort contract: FakeStore', () => {
  for (const c of STORE_PORT_CONTRACT) it(c.name, () => c.run(contractStore(new FakeStore())));
});

/** The cases a store fails (their names). */
async function failures(make: () => FakeStore, cases: readonly ContractCase[]): Promise<string[]> {
  const failed: string[] = [];
  for (const c of cases) {
    try {
      await c.run(contractStore(make()));
    } catch {
      failed.push(c.name);
    }
  }
  return failed;
}

/** A fake that forgot to compare the compaction point. */
class NoCmpCheck extends FakeStore {
  override async apply(space: Parameters<FakeStore['apply']>[0], applies: readonly PlannedApply[]) {
    return super.apply(
      space,
      applies.map((a) => ({ ...a, expectedCmp: this.cmps.get(a.apiId) ?? null })),
    );
  }
}

/** A fake whose watermark moves whatever the expected offset. */
class BlindWatermark extends FakeStore {
  override advanceWatermark(...args: Parameters<FakeStore['advanceWatermark']>) {
    const [space, topic, partition, , next] = args;
    return super.advanceWatermark(
      space,
      topic,
      partition,
      this.wms.get(`${topic}/${partition}`) ?? null,
      next,
    );
  }
}

/** A fake that forgets which crossings it appended when the generation changes (counters and set together). */
class CrossingsPerGeneration extends FakeStore {
  override async apply(space: Parameters<FakeStore['apply']>[0], applies: readonly PlannedApply[]) {
    if (space.generation !== this.generation) this.recordedCrossings.clear();
    return super.apply(space, applies);
  }
}

describe('StorePort contract: a planted fault in the fake fails it', () => {
  it('a fake that appends a crossing again in a new generation fails the detection case', async () => {
    expect(await failures(() => new CrossingsPerGeneration(), STORE_PORT_CONTRACT)).toEqual([
      'apply: each level a count crosses is appended once per rule; a recount in another generation appends none',
    ]);
  });

  it('a fake that skips the cmp check fails the cmp cases', async () => {
    expect(await failures(() => new NoCmpCheck(), STORE_PORT_CONTRACT)).toEqual([
      'apply: then cmp; a moved compaction point writes nothing and names it',
      'apply: one outcome per API, in order, each decided on its own',
    ]);
  });

  it('a fake whose watermark ignores the expected offset fails the watermark case', async () => {
    expect(await failures(() => new BlindWatermark(), STORE_PORT_CONTRACT)).toEqual([
      'advanceWatermark: a compare-and-set from the expected offset (none = null)',
    ]);
  });

  it('the fake as it is fails none', async () => {
    expect(await failures(() => new FakeStore(), STORE_PORT_CONTRACT)).toEqual([]);
  });
});
