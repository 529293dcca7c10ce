import { describe, expect, it } from 'vitest';
import { PhaseClock, recordsPerSecond, timingsLine } from './timings';

describe('PhaseClock', () => {
  it('times each phase to the next mark and the run to the end of the switch', () => {
    let now = 1_000;
    const clock = new PhaseClock(() => now);
    clock.begin('copy');
    now += 500;
    clock.begin('replay');
    now += 10_000;
    clock.begin('catchUp');
    now += 200;
    clock.begin('switch'); // a switch attempt that finds g' behind: back to catching up
    now += 50;
    clock.begin('catchUp');
    now += 100;
    clock.begin('switch');
    now += 150;
    clock.begin('cleanup');
    now += 3_000;
    const t = clock.timings(2_200_000);
    expect(t.seconds).toEqual({ copy: 0.5, replay: 10, catchUp: 0.3, switch: 0.2, cleanup: 3 });
    expect(t.toSwitch).toBe(11);
    expect(recordsPerSecond(t)).toBe(200_000);
  });

  it('has no switch time when the run stopped before it (a resumed run starts where it was)', () => {
    let now = 0;
    const clock = new PhaseClock(() => now);
    clock.begin('replay');
    now += 1_000;
    const t = clock.timings(10);
    expect(t).toEqual({ seconds: { replay: 1 }, toSwitch: null, records: 10 });
    expect(recordsPerSecond(t)).toBeNull();
  });
});

describe('timingsLine', () => {
  const t = { seconds: { copy: 0.04, replay: 12.34, switch: 0.1 }, toSwitch: 12.5, records: 2_500_000 };
  it('text: the phases in order, then start to switch with the rate', () => {
    expect(timingsLine(t, 'text')).toBe(
      'timings: copy 0.0 s, replay 12.3 s, switch 0.1 s; start to switch 12.5 s for 2500000 records (200000 events/s)',
    );
  });
  it('json: one object the bench reads', () => {
    expect(JSON.parse(timingsLine(t, 'json'))).toEqual({
      rebuild: 'timings',
      seconds: t.seconds,
      toSwitchSeconds: 12.5,
      records: 2_500_000,
      eventsPerSecond: 200_000,
    });
  });
});
