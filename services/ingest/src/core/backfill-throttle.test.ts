import { describe, expect, it } from 'vitest';
import { BackfillThrottle } from './backfill-throttle';

describe('BackfillThrottle', () => {
  it('pauses above the pause lag summed over live partitions and resumes below the resume lag', () => {
    const t = new BackfillThrottle(1000, 100);
    expect(t.observe(0, 600).action).toBeUndefined();
    expect(t.observe(1, 600)).toEqual({ action: 'pause', total: 1200 });
    expect(t.observe(0, 0).action).toBeUndefined(); // 600: between the bounds, stays paused
    expect(t.isPaused).toBe(true);
    expect(t.observe(1, 50)).toEqual({ action: 'resume', total: 50 });
    expect(t.isPaused).toBe(false);
  });

  it('a new assignment forgets the lags and resumes a paused backfill', () => {
    const t = new BackfillThrottle(10, 5);
    t.observe(0, 20);
    expect(t.reset()).toBe('resume');
    expect(t.reset()).toBeUndefined();
    expect(t.observe(1, 8).action).toBeUndefined();
  });
});
