// The public entry of @va/store: what other packages import, by name (docs/design.md, the map of
// libs/store). Test helpers are @va/store/testing's. A name is added here when a module outside
// libs/store needs it, not because its module has it.
export {
  alertGlobalKeys,
  alertKeys,
  apiKeys,
  type DictName,
  generationRoot,
  globalKeys,
  type KeySpace,
  partitionField,
  type Resolution,
  watermarkKey,
} from './keys';
export { defineCommands, scriptNamesBySha } from './commands';
export {
  apiTimeZone,
  apiWorkspace,
  createRootKey,
  DEFAULT_API_TIME_ZONE,
  findRootKey,
  hashRootKey,
  readAuthRecords,
  registerApi,
  revokeRootKey,
  revokeRootKeyByHash,
  ROOT_KEY_ID_PATTERN,
  setApiTimeZone,
  type RootKeyRecord,
  type SetTimeZoneResult,
} from './registry';
export {
  billingZoneSince,
  billingZonesOf,
  declareBillingZone,
  type DeclareBillingZoneResult,
} from './billing-zones';
export { identityValue, parseIdentity, parseTagSet, tagSetValue } from './dictionary-values';
export {
  type ApiCodes,
  DICTIONARIES,
  DictionaryWriter,
  emptyMissing,
  type MissingValues,
} from './dictionary';
export { type ApiIncrements, expand, TupleCounter, type WriteContext } from './aggregate';
export {
  type AlertCounterIncrements,
  type AlertIncrements,
  type AlertLevelTable,
  levelField,
  writeAlertLevels,
} from './alert-detection';
export { applyApiBatches, drainStaged } from './apply';
export { confirmOffsets, readApiProgress, readGeneration, readWatermark, readWatermarks } from './watermark';
export { registerApisFromEvents } from './api-registration';
export { type ChangeSignal, decodeChangeSignal, encodeChangeSignal, publishChanges } from './change-signal';
export { workspaceApis } from './workspace-apis';
export {
  type AlertRules,
  countAlertRules,
  createAlertRule,
  deleteAlertRule,
  findAlertRule,
  readAlertRules,
  readAlertRulesVersion,
} from './alert-rules';
export {
  appendCrossing,
  CROSSING_FIELDS,
  type CrossingFields,
  CROSSINGS_GROUP,
  decodeCrossing,
  encodeCrossing,
} from './crossing-codec';
export {
  countAlertEndpoints,
  createAlertEndpoint,
  deleteAlertEndpoint,
  findAlertEndpoint,
  newEndpointId,
  newWebhookSecret,
  publicEndpoint,
  readAlertEndpoints,
  type StoredAlertEndpoint,
  subscribes,
} from './alert-endpoints';
export { appendDeliveryAttempt, DELIVERY_LOG_LENGTH, listDeliveryAttempts } from './alert-deliveries';
export { ReadDictionaries } from './read-dictionaries';
export {
  type ApiMeta,
  type CodeCounts,
  type CubeQuery,
  decodeCells,
  PARTS_BUDGET,
  queueApiMeta,
  readApiMeta,
  readCounts,
  type Projection,
  type ReadOptions,
  sectionCubeOf,
} from './read';
export {
  compactApi,
  compactionStatus,
  holdCompaction,
  readCompactedThrough,
  releaseCompaction,
} from './compaction';
export { ACTIVE_REBUILD, readRebuildState, type RebuildState, updateRebuild } from './generation-state';
export { copyApiGeneration, initWatermarks, readCarries } from './generation-copy';
export { switchGeneration } from './generation-switch';
export { deleteGeneration } from './generation-delete';
export { listApis, oldestCountedTime } from './generation-scan';
export { denyReadToken } from './read-token-access';
export {
  connectRedis,
  describeTarget,
  isCluster,
  masterNodes,
  type RedisClient,
  type RedisTarget,
} from './connection';
export { execPipeline, newPipeline, queueCommand, type ReplicaWait } from './pipeline';
export {
  decodeSection,
  deriveIdentityKey,
  encodeSection,
  mergeSections,
  type Section,
  SectionRows,
  sectionVersion,
} from './section/codec';
export {
  type CacheUse,
  countingStore,
  SectionCache,
  type SectionCacheStats,
  type SectionStore,
  sumCacheStats,
} from './section-cache';
export { prepareSeal, readDirty, sealableBuckets, sealApi, sealBucket } from './seal';
export { type DictionarySizes, sectionRowsBound, sectionRowsOf, sumCostUs } from './read-cost';
export { advanceWatermark } from './scripts/watermark-scripts';
export {
  queueAdmitQuery,
  type AdmissionReply,
  type AdmissionRequest,
  type LimitOwnerScope,
  type OwnerLimits,
} from './scripts/admission-scripts';
export { transitionRebuild } from './scripts/generation-scripts';
export { beginSeal, commitSeal, type SealTarget } from './scripts/seal-scripts';
