export * from './types';
export * from './time';
export * from './filters';
export * from './cube';
export { parseQuery, type ParseQueryOptions, type ParseQueryResult } from './query/parseQuery';
export {
  checkTimeZone,
  namesTimeZone,
  timeZoneErrors,
  withDefaultTimeZone,
  zoneNameOf,
  type TimeZoneCheck,
} from './query/timeZone';
export {
  buildRows,
  buildRowsJson,
  type BuildRowsJsonResult,
  type BuildRowsOptions,
  type BuildRowsResult,
  type RowsJson,
} from './rows/buildRows';
export { rowCapError } from './rows/cap';
export { oracle, type OracleOptions, type OracleResult } from './oracle/oracle';
export { retentionModel, type RetentionModel } from './oracle/retention';
export * from './planner';
export { edgesOnHours, resolveTimeZone, sliceIndexAt, sliceStartOf, sliceStartsIn } from './calendar';
export { precisionHeader, type XPrecision } from './precision';
export {
  boundRows,
  everyEventHasAGroup,
  groupsUpperBound,
  sliceCount,
  type GroupSources,
  type RowBound,
  type RowBoundInput,
} from './rows/bound';
export {
  chooseSlices,
  edgeSlices,
  firstHourOfIndex,
  indexOfHour,
  startOfIndex,
  timeOrdered,
  type SliceChoice,
  type SliceInput,
} from './rows/slices';
export { countedCells, groupCount } from './rows/groupCount';
export { counterValue, topGroupsOf, topThreshold, type TopGroups } from './rows/top-groups';
export { TOTAL } from './rows/counts';
export { ByteWriter, jsonText } from './rows/json';
export { alertId, alertPeriodOfHour, alertPeriodStart } from './alerts/alert-id';
export { alertCounterId, type CountedDefinition } from './alerts/alert-counter';
export { expectedCrossings, memberOf, type ExpectedCrossing } from './alerts/alert-oracle';
export {
  composeSlice,
  edgeAt,
  edgeBucketEnd,
  EdgeFinder,
  holdsHour,
  edgeResolution,
  edgesOfUtcDay,
  MAX_BILLING_ZONES,
  parseEdgeResolution,
  type EdgeRead,
  type EdgeResolution,
  type ZoneEdge,
  type ZoneNumber,
} from './zone-edges';
