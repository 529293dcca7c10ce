import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact';

describe('redactSecrets', () => {
  it('hides the password of every URL in a text, keeping the rest', () => {
    expect(redactSecrets('cannot reach Redis at redis://:s3cret@10.0.0.1:6380: refused')).toBe(
      'cannot reach Redis at redis://:***@10.0.0.1:6380: refused',
    );
    expect(redactSecrets('a rediss://default:p%40ss:w@h:1/0 and redis://u:x@h2')).toBe(
      'a rediss://default:***@h:1/0 and redis://u:***@h2',
    );
    // A lone userinfo may be a password to some clients.
    expect(redactSecrets('redis://onlysecret@host')).toBe('redis://***@host');
  });

  it('leaves texts without credentials alone', () => {
    for (const text of [
      'redis://127.0.0.1:6380',
      'http://h/p?q=a@b',
      'mail me@example.com',
      'Redis at a:1,b:2',
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });
});
