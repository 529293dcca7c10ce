import { describe, expect, it } from 'vitest';
import { pickerOf } from './api-picker';

describe('pickerOf (#45: the user picks an API instead of typing its id)', () => {
  it("offers a root key's listed APIs and shows the first when the view names none", () => {
    expect(pickerOf(['api_a', 'api_b'], '')).toEqual({
      options: ['api_a', 'api_b'],
      selected: 'api_a',
      disabled: false,
    });
  });

  it("keeps the view's API, also one the list does not hold", () => {
    expect(pickerOf(['api_a', 'api_b'], 'api_b').selected).toBe('api_b');
    expect(pickerOf(['api_a'], 'api_x')).toEqual({
      options: ['api_x', 'api_a'],
      selected: 'api_x',
      disabled: false,
    });
    expect(pickerOf(undefined, 'api_x').options).toEqual(['api_x']);
  });

  it('has nothing to show when nothing is listed or named', () => {
    expect(pickerOf([], '')).toEqual({ options: [], selected: '', disabled: false });
  });

  it("fixes a read token's API whatever the view or a list says", () => {
    expect(pickerOf(['api_a'], 'api_a', { apiId: 'api_t', externalId: 'e' })).toEqual({
      options: ['api_t'],
      selected: 'api_t',
      disabled: true,
    });
  });
});
