import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '@va/core';
import { badEvents, goodEvent } from './bad-events';
import { decodeContext, decodeEvent, isExpired, MAX_FUTURE_MS } from './decode';

const DAY = 86_400_000;
const retention = { hourMs: 35 * DAY, dayMs: 400 * DAY, monthMs: 5 * 366 * DAY };
const now = Date.UTC(2025, 5, 15, 12, 30);
const ctx = decodeContext(now, retention);
const decode = (v: unknown) => decodeEvent(Buffer.from(JSON.stringify(v)), ctx);

describe('decodeEvent: one verdict per record (#17.4)', () => {
  const value = (time: number) => Buffer.from(JSON.stringify(goodEvent(time)));
  const later = decodeContext(now + 60 * 60_000, retention);

  it('judges "future" against the record\'s Kafka timestamp, whatever the clock says when it runs', () => {
    const future = value(now + MAX_FUTURE_MS + 30_000);
    expect(decodeEvent(future, ctx, { receivedAt: now })).toMatchObject({ ok: false, reason: 'future_time' });
    expect(decodeEvent(future, later, { receivedAt: now })).toMatchObject({
      ok: false,
      reason: 'future_time',
    });
    const fine = value(now + MAX_FUTURE_MS - 1);
    expect(decodeEvent(fine, ctx, { receivedAt: now }).ok).toBe(true);
    expect(decodeEvent(fine, later, { receivedAt: now }).ok).toBe(true);
  });

  it('falls back to the clock without a valid timestamp, and leaves expiry to the caller when asked', () => {
    const future = value(now + MAX_FUTURE_MS + 1);
    expect(decodeEvent(future, ctx, { receivedAt: Number(undefined) })).toMatchObject({
      reason: 'future_time',
    });
    const old = value(ctx.expiredBefore - 1);
    expect(decodeEvent(old, ctx)).toMatchObject({ ok: false, reason: 'expired' });
    const decoded = decodeEvent(old, ctx, { checkExpiry: false });
    expect(decoded.ok && isExpired(decoded, ctx)).toBe(true);
  });
});

describe('decodeEvent', () => {
  it('decodes a valid event into dictionary values', () => {
    const result = decode(goodEvent(now - 5000, { tags: ['b', 'a', 'b'], outcome: 'RATE_LIMITED' }));
    expect(result).toEqual({
      ok: true,
      workspaceId: 'ws_bad',
      apiId: 'api_bad',
      keyId: 'key_1',
      o: 4,
      time: now - 5000,
      hour: Math.floor((now - 5000) / HOUR_MS),
      identity: 'id_1\next 1',
      tagSet: 'a,b\u001feu-west-1', // the region after U+001F (dictionary-values.ts)
    });
  });

  it('carries the region into the tag-set value; an empty region is none, as no region', () => {
    const value = (region: string | undefined) => {
      const e = goodEvent(now, { tags: ['b', 'a'] });
      if (region === undefined) delete e.region;
      else e.region = region;
      const result = decode(e);
      return result.ok ? result.tagSet : result.reason;
    };
    expect(value(undefined)).toBe('a,b');
    expect(value('')).toBe('a,b');
    expect(value('us, east')).toBe('a,b\u001fus, east');
    // The region has no text rule: a control character in it is counted as it is.
    expect(value('x\ny')).toBe('a,b\u001fx\ny');
  });

  it('accepts optional fields absent, empty tags, unknown extra fields and unicode', () => {
    const e = goodEvent(now, {
      tags: [],
      extra: { nested: true },
      identity: { id: 'i', externalId: 'Kundin ✓ 😀' },
    });
    delete e.region;
    const result = decode(e);
    expect(result.ok && result.tagSet).toBe('');
    expect(result.ok && result.identity).toBe('i\nKundin ✓ 😀');
    const bare = goodEvent(now);
    delete bare.identity;
    delete bare.tags;
    const r2 = decode(bare);
    expect(r2.ok && r2.identity).toBeUndefined();
  });

  it('accepts the limits themselves: 20 tags, 5 minutes ahead, 255-char ids', () => {
    expect(decode(goodEvent(now, { tags: Array.from({ length: 20 }, (_, n) => `t${n}`) })).ok).toBe(true);
    expect(decode(goodEvent(now + MAX_FUTURE_MS)).ok).toBe(true);
    expect(decode(goodEvent(now, { keyId: 'k'.repeat(255), requestId: 'r'.repeat(255) })).ok).toBe(true);
    expect(decode(goodEvent(now - 4 * 366 * DAY)).ok).toBe(true);
  });

  // workspace_mismatch needs the registry: the worker decides it, not decodeEvent.
  for (const bad of badEvents(now).filter((b) => b.reason !== 'workspace_mismatch')) {
    it(`refuses ${bad.name} as ${bad.reason}`, () => {
      const result = decodeEvent(bad.value, ctx);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.reason).toBe(bad.reason);
        expect(result.detail.length).toBeGreaterThan(0);
      }
    });
  }

  it('expires exactly the months whose end plus month retention has passed', () => {
    const monthMs = retention.monthMs;
    // Brute force over month boundaries around the cutoff.
    for (let m = -3; m <= 3; m++) {
      const probeNow = Date.UTC(2025, 0 + m, 1) + monthMs + (m % 2 === 0 ? 0 : 12_345);
      const c = decodeContext(probeNow, retention);
      for (let back = 0; back < 70; back++) {
        const time = Date.UTC(2020, 0 + m, 1) + back * 86_400_000 * 3 - 1;
        const monthEnd = Date.UTC(new Date(time).getUTCFullYear(), new Date(time).getUTCMonth() + 1, 1);
        const expired = monthEnd + monthMs <= probeNow;
        expect(
          time < c.expiredBefore,
          `${new Date(time).toISOString()} at ${new Date(probeNow).toISOString()}`,
        ).toBe(expired);
      }
    }
  });

  it('names the failing path in schema details', () => {
    const result = decode(goodEvent(now, { keyId: 'a b' }));
    expect(!result.ok && result.detail).toMatch(/^\/keyId: /);
    const nested = decode(goodEvent(now, { identity: { id: 'i', externalId: '\u0000' } }));
    expect(!nested.ok && nested.detail).toMatch(/^\/identity\/externalId: /);
  });
});
