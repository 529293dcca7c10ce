import { describe, expect, it } from 'vitest';
import { decodeChangeSignal, encodeChangeSignal } from './change-signal';

describe('change signal format', () => {
  it('round-trips a signal', () => {
    const signal = { generation: 3, apiIds: ['api_a', 'api.b:c'] };
    expect(decodeChangeSignal(encodeChangeSignal(signal))).toEqual(signal);
  });

  it('reads what is not a signal as null', () => {
    for (const message of ['', 'api_a', '{"g":1}', '{"g":"1","apis":[]}', '{"g":1,"apis":[1]}', 'null']) {
      expect(decodeChangeSignal(message)).toBeNull();
    }
  });
});
