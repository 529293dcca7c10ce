// @va/store/testing: the store-level checks of every package's tests: every cube read back and decoded
// (cube-dump), the counts a list of events must produce and their comparison with the store (counts,
// expect-store), the steps of a seal one at a time (seal), and the tests' Redis: connect, list, clean up
// (redis), and one readBuckets call on its own (readBucketsOnce). Tests and test harnesses only: eslint.config.js refuses this entry in a production module.
export * from './cube-dump';
export * from './counts';
export * from './expect-store';
export * from './seal';
export * from './redis';
export { readBucketsOnce } from '../scripts/read-scripts';
export { cubeQuery } from './cube-query';
