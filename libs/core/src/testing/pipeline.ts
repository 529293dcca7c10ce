/**
 * Test support: the production read path in miniature, over raw events instead of Redis.
 * Events are projected onto the cube chooseCube picks (only the dimensions that cube
 * stores), filtered with matchesFilters as a reader filters decoded dictionary entries,
 * turned into one Cell each, and handed to buildRows. Comparing its answers with the
 * oracle's checks buildRows, chooseCube and the cell contract together.
 */
import { OUTCOMES, type VerificationEvent } from '@va/contracts';
import { chooseCube, type Cube } from '../cube';
import { matchesFilters, type FilterDims } from '../filters';
import { buildRows, type BuildRowsResult } from '../rows/buildRows';
import { hourOf, sliceStartOfHour, sliceStarts } from '../time';
import type { Cell, ParsedQuery } from '../types';

/** The dimensions an event has in a cube, or null when the cube holds no trace of it. */
function project(event: VerificationEvent, cube: Cube): FilterDims | null {
  const tags = [...new Set(event.tags ?? [])].sort();
  const region = event.region === '' ? undefined : event.region;
  switch (cube) {
    case 't':
      return {};
    case 'k':
      return { keyId: event.keyId };
    case 'i':
      return event.identity ? { identity: event.identity } : null; // cube i: only events with identity
    case 's':
      return { tags, ...(region !== undefined && { region }) };
    case 'f':
      return { keyId: event.keyId, identity: event.identity, tags, ...(region !== undefined && { region }) };
  }
}

export function rowsFromEvents(
  events: readonly VerificationEvent[],
  query: ParsedQuery,
  options: { maxRows: number; lowestHour?: number },
): BuildRowsResult {
  const cube = chooseCube(query);
  const granularity = query.groupBy.granularity;
  const cells: Cell[] = [];
  for (const event of events) {
    if (event.apiId !== query.apiId) continue;
    const hour = hourOf(event.time);
    if ((query.startHour !== undefined && hour < query.startHour) || hour > query.endHour) continue;
    const dims = project(event, cube);
    if (dims === null || !matchesFilters(query, dims)) continue;
    const counts = OUTCOMES.map((o) => (o === event.outcome ? 1 : 0));
    cells.push({ slice: granularity ? sliceStartOfHour(hour, granularity) : null, ...dims, counts });
  }
  // Without a start a reader reads from some lower bound and lets buildRows trim.
  const from = query.startHour ?? Math.min(options.lowestHour ?? query.endHour, query.endHour);
  return buildRows(query, cells, {
    slices: granularity ? sliceStarts(from, query.endHour, granularity) : null,
    trimLeading: query.startHour === undefined,
    maxRows: options.maxRows,
  });
}
