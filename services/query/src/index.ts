export { createServer, type ServerDeps } from './server';
export { GET_VERIFICATIONS } from './routes/v1_analytics_getVerifications';
export type { VerificationsDeps } from './verifications/deps';
