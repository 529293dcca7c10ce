// @va/ingest/testing: seeding a test's Redis through the ingest worker's own batch processor (seed.ts), for the
// tests of every package above ingest (query, CLI) and the store's read and seal tests (test/store/). Tests and
// test harnesses only: eslint.config.js refuses this entry in a production module.
export * from './seed';
