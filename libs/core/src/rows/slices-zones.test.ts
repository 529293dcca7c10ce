import { describe, expect, it } from 'vitest';
import { localDayStart } from '../calendar';
import { dayOf, hourOf } from '../time';
import { sliceCount } from './bound';
import { chooseSlices, edgeSlices } from './slices';

const KTM = 'Asia/Kathmandu';
const day = (iso: string) => localDayStart(KTM, dayOf(Date.parse(`${iso}T00:00:00Z`)));

describe('slices of a zone (docs/api.md#time-zones)', () => {
  const startHour = hourOf(Date.parse('2026-01-10T00:00:00Z')); // local 05:45 on the 10th
  const endHour = hourOf(Date.parse('2026-01-20T00:00:00Z'));
  it('chooseSlices: the local days, and data slices found by their start inside an hour', () => {
    const all = chooseSlices({
      startHour,
      endHour,
      granularity: 'day',
      timeZone: KTM,
      fromFirstData: false,
      limit: undefined,
      maxRows: 100,
      dataSlices: [],
      groupCount: () => 1,
    });
    expect(all.ok && all.slices[0]).toBe(day('2026-01-10'));
    expect(all.ok && all.slices.length).toBe(11);
    // Over the cap with a limit: the edges and the slices with data, which start at hh:15.
    const sparse = chooseSlices({
      startHour,
      endHour,
      granularity: 'day',
      timeZone: KTM,
      fromFirstData: false,
      limit: 1,
      maxRows: 5,
      dataSlices: [day('2026-01-15')],
      groupCount: () => 1,
    });
    expect(sparse.ok && sparse.slices).toEqual(
      ['2026-01-10', '2026-01-11', '2026-01-15', '2026-01-19', '2026-01-20'].map(day),
    );
  });
  it('edgeSlices and sliceCount count local days', () => {
    expect(sliceCount(startHour, endHour, 'day', KTM)).toBe(11);
    expect(edgeSlices(startHour, endHour, 'day', 'desc', 2, KTM)).toEqual([
      day('2026-01-19'),
      day('2026-01-20'),
    ]);
    expect(edgeSlices(startHour, endHour, 'day', 'asc', 2, KTM)).toEqual([
      day('2026-01-10'),
      day('2026-01-11'),
    ]);
  });
});
