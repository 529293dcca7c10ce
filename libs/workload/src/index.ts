// @va/workload: the seeded synthetic workload. Not test code: the CLI's produce and demo commands use it,
// so it lives outside @va/testkit (which pulls vitest and testcontainers).
export * from './generator';
export * from './tail';
