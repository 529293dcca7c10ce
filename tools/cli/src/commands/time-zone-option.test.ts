// `--time-zone` of `api register|update` and `alerts rules create` is checked before anything is read or
// sent (no Redis, no service here): what the timeZone parameter refuses exits 2 naming the option.
import { describe, expect, it } from 'vitest';
import { runCli } from '../program';

function capture() {
  let err = '';
  return { io: { out: () => undefined, err: (text: string) => void (err += text) }, err: () => err };
}

describe('--time-zone', () => {
  it.each([
    ['api', 'register', '--workspace', 'ws', '--api', 'a', '--time-zone', 'Mars/Olympus'],
    ['api', 'update', '--api', 'a', '--time-zone', '+05:30'],
    [
      'alerts',
      'rules',
      'create',
      '--api',
      'a',
      '--scope',
      'api',
      '--period',
      'day',
      '--level',
      '1',
      '--time-zone',
      'UTC+1',
    ],
  ])('%s %s refuses an unknown zone with exit 2', async (...argv) => {
    const { io, err } = capture();
    expect(await runCli(argv, io)).toBe(2);
    expect(err()).toMatch(
      /^error: --time-zone must be an IANA time zone name; got "(Mars\/Olympus|\+05:30|UTC\+1)"/,
    );
    expect(err()).toContain('America/New_York');
  });
});
