// How each service's Node process is started, for every way we start one: `npm start` (supervisor.mjs), the
// benchmarks (bench/src/services.ts, services/ingest/bench/ingest-throughput.ts) and infra/measure-start.mjs, so
// that what we measure is what runs. docker-compose.yml spells them out too (test/build/dockerfile.test.ts checks it).

// The ingest worker allocates short-lived objects per event (kafkajs's message objects, the decoded events);
// a larger young generation lets them die there: fewer scavenges, and fewer objects of a batch still in
// flight promoted to the old generation (docs/benchmarks-history.md, "The worker's young generation").
export const NODE_FLAGS = { ingest: ['--max-semi-space-size=64'] };

/**
 * glibc malloc settings, read by the C library when the process starts (no other way to set them from Node).
 *
 * kafkajs copies every fetch response (up to INGEST_MAX_BYTES, 64 MiB by default) into one new Buffer. glibc
 * serves an allocation that large with a fresh mmap and unmaps it when the Buffer is freed, so every response
 * paid a page fault per 4 KiB of fresh, kernel-zeroed memory, a visible share of the worker's CPU in its profile.
 * With mmap off (MALLOC_MMAP_MAX_=0) large buffers come from the heap, and a trim threshold above a few
 * responses keeps the freed pages for the next one (docs/benchmarks-history.md, "Fetch responses on reused
 * pages").
 * The cost: up to that much freed memory stays resident. No effect on a C library other than glibc (Alpine's musl).
 */
const MiB = 1024 * 1024;
export const SERVICE_ENV = {
  ingest: { MALLOC_MMAP_MAX_: '0', MALLOC_TRIM_THRESHOLD_: String(256 * MiB) },
};

/** The Node flags of service `name` (none for a service without any). */
export const nodeFlagsOf = (name) => NODE_FLAGS[name] ?? [];

/** The environment variables service `name` runs with, on top of its configuration ({} for none). */
export const serviceEnvOf = (name) => SERVICE_ENV[name] ?? {};
