import { describe, expect, it } from 'vitest';
import { propertyExtensionMs, repeatFor, scaled, timeScale } from './time';

describe('TEST_TIME_SCALE', () => {
  it('is 1 unless set, and multiplies a budget (rounded up)', () => {
    expect(timeScale({})).toBe(1);
    expect(timeScale({ TEST_TIME_SCALE: '' })).toBe(1);
    expect(scaled(60_000, {})).toBe(60_000);
    expect(scaled(60_000, { TEST_TIME_SCALE: '3' })).toBe(180_000);
    expect(scaled(1_000, { TEST_TIME_SCALE: '1.0005' })).toBe(1_001);
  });

  it('refuses what would shorten a budget or is not a number', () => {
    for (const raw of ['0.5', '0', '-2', 'fast', 'Infinity']) {
      expect(() => timeScale({ TEST_TIME_SCALE: raw })).toThrow(/TEST_TIME_SCALE must be a number >= 1/);
    }
  });
});

describe('TEST_PROPERTY_EXTENSION_MS', () => {
  it('is the default unless set; 0 turns the extension off', () => {
    expect(propertyExtensionMs(1_500, {})).toBe(1_500);
    expect(propertyExtensionMs(1_500, { TEST_PROPERTY_EXTENSION_MS: '0' })).toBe(0);
    expect(propertyExtensionMs(1_500, { TEST_PROPERTY_EXTENSION_MS: '600000' })).toBe(600_000);
    expect(() => propertyExtensionMs(1_500, { TEST_PROPERTY_EXTENSION_MS: '-1' })).toThrow(/>= 0/);
  });
});

describe('repeatFor', () => {
  it('runs rounds until the budget has passed, and stops there without failing', async () => {
    let clock = 0;
    const seen: number[] = [];
    const rounds = await repeatFor(
      1_000,
      (n) => {
        seen.push(n);
        clock += 300; // each round takes 300 ms
      },
      () => clock,
    );
    expect(rounds).toBe(4); // started at 0, 300, 600, 900; over at 1,200
    expect(seen).toEqual([0, 1, 2, 3]);
  });

  it('runs no round with a budget of 0', async () => {
    expect(await repeatFor(0, () => expect.fail('ran'))).toBe(0);
  });

  it('fails with the first round that fails', async () => {
    let n = 0;
    await expect(
      repeatFor(60_000, () => {
        if (++n === 3) throw new Error('counterexample');
      }),
    ).rejects.toThrow('counterexample');
    expect(n).toBe(3);
  });
});

describe('vitest.config.ts', () => {
  it("gives the unit project's tests 60 s times TEST_TIME_SCALE", ({ task }) => {
    expect(task.timeout).toBe(scaled(60_000));
  });
});
