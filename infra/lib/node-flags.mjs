// Node flags per service, for every way we start one: `npm start` (supervisor.mjs), the benchmarks
// (bench/src/services.ts, services/ingest/bench/ingest-throughput.ts) and infra/measure-start.mjs, so that
// what we measure is what runs. docker-compose.yml spells them out too (test/build/dockerfile.test.ts checks it).
//
// The ingest worker allocates short-lived objects per event (kafkajs's message objects, the decoded events);
// a larger young generation lets them die there: fewer scavenges, and fewer objects of a batch still in
// flight promoted to the old generation (docs/benchmarks.md, "The worker's young generation").
export const NODE_FLAGS = { ingest: ['--max-semi-space-size=64'] };

/** The flags of service `name` (none for a service without any). */
export const nodeFlagsOf = (name) => NODE_FLAGS[name] ?? [];
