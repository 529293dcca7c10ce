export { createServer, type ServerDeps } from './server';
export { GET_VERIFICATIONS } from './routes/v1_analytics_getVerifications';
export { answerVerifications, type Answer, type VerificationsDeps } from './verifications/answer';
