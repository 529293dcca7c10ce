import { describe, expect, it } from 'vitest';
import { parseOptions, type BenchOptions } from './options';

const parse = (args: string[]) => parseOptions(args) as BenchOptions;

describe('parseOptions', () => {
  it('has the full and the quick profile', () => {
    expect(parse([])).toMatchObject({ events: 10_000_000, days: 90, seconds: 10, profile: 'full' });
    expect(parse(['--quick'])).toMatchObject({ events: 500_000, days: 30, seconds: 3, profile: 'quick' });
    expect(parse(['--quick', '--skip-produce']).profile).toBe('quick-reused');
  });

  it('makes any other option a custom run, and --scenario skips live ingest and freshness by default', () => {
    const o = parse(['--quick', '--scenario', 'by-tag-30d']);
    expect(o).toMatchObject({
      profile: 'custom',
      scenarios: ['by-tag-30d'],
      freshnessSeconds: 0,
      liveEvents: 0,
    });
    expect(parse(['--quick', '--scenario', 'by-tag-30d', '--freshness-seconds', '5']).freshnessSeconds).toBe(
      5,
    );
    expect(parse(['--connections', '1,4']).connections).toEqual([1, 4]);
  });

  it('#43: declares Asia/Kolkata as the medium API billing zone unless --billing-zone says another or none', () => {
    expect(parse([]).billingZone).toBe('Asia/Kolkata');
    expect(parse(['--billing-zone', 'America/New_York'])).toMatchObject({
      billingZone: 'America/New_York',
      profile: 'custom',
    });
    expect(parse(['--billing-zone', 'none']).billingZone).toBeNull();
    expect(() => parse(['--billing-zone', 'Mars/Olympus'])).toThrow(/--billing-zone must be an IANA/);
  });

  it('#40: runs the query service with the shipped limits unless --no-limits, which makes the run custom', () => {
    expect(parse([]).limits).toBe(true);
    expect(parse(['--no-limits'])).toMatchObject({ limits: false, profile: 'custom' });
  });

  it('#41: --tail is the tail profile; --tail-events makes it custom', () => {
    expect(parse(['--tail'])).toMatchObject({ tail: true, tailEvents: 3_000_000, profile: 'tail' });
    expect(parse(['--tail', '--tail-events', '300000'])).toMatchObject({
      tailEvents: 300_000,
      profile: 'custom',
    });
    expect(() => parse(['--tail-events', '300000'])).toThrow(/--tail/);
  });

  it('#44: --stream is the stream profile (1,000 streams, 50 APIs, 30 s); its sizes make it custom', () => {
    expect(parse(['--stream'])).toMatchObject({
      stream: true,
      streams: 1_000,
      streamApis: 50,
      streamSeconds: 30,
      profile: 'stream',
    });
    expect(parse(['--stream', '--streams', '100', '--stream-seconds', '10'])).toMatchObject({
      streams: 100,
      streamSeconds: 10,
      profile: 'custom',
    });
    expect(() => parse(['--streams', '100'])).toThrow(/--stream/);
    expect(() => parse(['--stream', '--tail'])).toThrow(/separate/);
  });

  it('#44: --alerts is the alerts profile (10,000 rules, 60 s at --rate, the live-shaped size); its sizes make it custom', () => {
    expect(parse(['--alerts'])).toMatchObject({
      alerts: true,
      alertRules: 10_000,
      alertsSeconds: 60,
      liveEvents: 2_000_000,
      freshnessRate: 10_000,
      profile: 'alerts',
    });
    expect(parse(['--alerts', '--alert-rules', '100', '--alerts-seconds', '10'])).toMatchObject({
      alertRules: 100,
      alertsSeconds: 10,
      profile: 'custom',
    });
    expect(parse(['--alerts', '--quick'])).toMatchObject({ liveEvents: 300_000, profile: 'custom' });
    expect(() => parse(['--alert-rules', '100'])).toThrow(/--alerts/);
    expect(() => parse(['--alerts', '--stream'])).toThrow(/separate/);
  });

  it('refuses bad numbers and unknown options', () => {
    expect(() => parse(['--events', '0'])).toThrow(/--events/);
    expect(() => parse(['--nope'])).toThrow();
  });
});
