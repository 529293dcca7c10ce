import { describe, expect, it } from 'vitest';
import { parseInfo, trafficBetween } from './redis-info';

describe('trafficBetween', () => {
  it("leaves out the two INFO calls' own read and command", () => {
    // A 10-command pipeline between two INFO stats calls reads as 2 reads and 11 commands.
    expect(trafficBetween({ reads: 100, commands: 500 }, { reads: 102, commands: 511 })).toEqual({
      reads: 1,
      commands: 10,
    });
    expect(trafficBetween({ reads: 5, commands: 5 }, { reads: 5, commands: 5 })).toEqual({
      reads: 0,
      commands: 0,
    });
  });

  it('reads INFO text', () => {
    expect(parseInfo('# Stats\r\ntotal_reads_processed:42\r\n')).toEqual({ total_reads_processed: '42' });
  });
});
