/**
 * Reading counters for a query (docs/design.md "Read path", docs/store-v2.md "Reading"): the API's
 * meta (compaction point, first buckets holding data) and the counters of a list of bucket reads,
 * in as few round trips as the layout allows:
 *   1. meta (one pipeline; the caller loads dictionaries beside it);
 *   2. every bucket, with few calls of the script readBuckets (commands/readBuckets.lua; one
 *      pipeline per round), each returning, with the compaction point, per bucket: its sealed
 *      section of the query's cube (only when the caller's cached copy is not current), and its
 *      sealing (`z:`) and delta hashes as one string per hash: named when the filters name them,
 *      else found in the bucket's parts and zparts sets inside the script; and the section parts
 *      of its parts lists (delta and sealing). A bucket's value is section + sealing + delta, and
 *      a seal moves counts between them atomically, so one call sees each count once.
 * Sections are summed over their typed arrays by code (read-sections.ts); hash fields are summed
 * per field in the client (FieldSums), as thousands of pipelined HGETALLs would cost far more.
 * Calls hold at most READ_MAX_KEYS of work, cut only between families (chunksOf): whenever the
 * plan reads an hour bucket and the day or month rollup around it, a compaction in between
 * would otherwise count that hour twice, so such buckets are read in one atomic call; then, and
 * whenever the plan reads a rollup the compactor still writes to, each call's compaction point is
 * checked (readsDependOnCompaction). When the compaction point moved, the caller plans again.
 *
 * By concern, in ./read/: api-meta.ts (the compaction point and the first data), cube-query.ts (what a
 * query asks of a cube, and what each bucket read fetches besides its section), units.ts (the items
 * per bucket, cut into calls), read-counts.ts (the calls in rounds, each reply summed), decode-cells.ts
 * (codes to values); readBuckets' KEYS and ARGV, and the C calls, are in ../scripts/read-scripts.ts.
 */
export { queueApiMeta, readApiMeta, type ApiMeta } from './read/api-meta';
export { DENSE_PARTS_MAX, sectionCubeOf, type CubeQuery } from './read/cube-query';
export { READ_MAX_KEYS } from './read/units';
export { readsDependOnCompaction } from './read/rollup-families';
export { PARTS_BUDGET } from './scripts/read-scripts';
export { READ_CALLS_PER_ROUND_TRIP, readCounts, type CountsRead, type ReadOptions } from './read/read-counts';
export { decodeCells } from './read/decode-cells';
export type { CodeCounts } from './read-fields';
export { type Projection, type ProjectionKind } from './read/projection';
