export * from './keys';
export * from './commands';
export * from './registry';
export * from './dictionary-values';
export * from './dictionary';
export * from './aggregate';
export * from './apply';
export * from './watermark';
export * from './api-registration';
export * from './workspace-apis';
export * from './read-dictionaries';
export * from './read-fields';
export * from './read';
export * from './compaction';
export * from './generation-state';
export * from './generation-copy';
export * from './generation-switch';
export * from './generation-delete';
export * from './generation-scan';
export * from './read-token-access';
export * from './connection';
export * from './pipeline';
export * from './section/codec';
export * from './section-cache';
export * from './read-sections';
export * from './seal';
export * from './read-cost';
// One typed function per Lua command (KEYS/ARGV built and the reply decoded side by side), by protocol.
export { applyApiBatchArgs, parseApplyReply, type ApplyCas, type ApplyResult } from './scripts/apply-scripts';
export { advanceWatermark, type AdvanceResult, type ConfirmResult } from './scripts/watermark-scripts';
export { compactNextHour, trimIndexes, type CompactStep } from './scripts/compaction-scripts';
export {
  transitionRebuild,
  type BehindPartition,
  type CarryBoundary,
  type Transition,
} from './scripts/generation-scripts';
export {
  beginSeal,
  commitSeal,
  type SealBegun,
  type SealCommitted,
  type SealTarget,
} from './scripts/seal-scripts';
