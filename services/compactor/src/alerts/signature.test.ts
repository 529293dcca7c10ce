import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { webhookHeaders, webhookSignature } from './signature';

// The example of the Standard Webhooks spec: a fixed secret, id, timestamp and body, and its signature.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TIMESTAMP = 1614265330;
const BODY = '{"test": 2432232314}';

describe('webhookSignature', () => {
  it("matches the spec's example", () => {
    expect(webhookSignature(SECRET, ID, TIMESTAMP, BODY)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('verifies with the standardwebhooks package, and fails on a changed body, id or secret', () => {
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(SECRET, ID, now, BODY);
    expect(new Webhook(SECRET).verify(BODY, headers)).toEqual({ test: 2432232314 });
    expect(() => new Webhook(SECRET).verify('{"test": 1}', headers)).toThrow();
    expect(() => new Webhook(SECRET).verify(BODY, { ...headers, 'webhook-id': 'other' })).toThrow();
    expect(() =>
      new Webhook('whsec_' + Buffer.alloc(24, 1).toString('base64')).verify(BODY, headers),
    ).toThrow();
  });

  it('refuses a secret that is not whsec_', () => {
    expect(() => webhookSignature('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', ID, TIMESTAMP, BODY)).toThrow(/whsec_/);
  });
});
