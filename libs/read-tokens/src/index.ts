/** End-user read tokens: JWTs that let one end user read one API's counts (docs/read-tokens.md). */
export * from './policy';
export { READ_TOKEN_ID_PATTERN, type ReadTokenClaims } from './claims';
export { mintReadToken, type MintInput, type MintedToken } from './sign';
export {
  looksLikeReadToken,
  unverifiedTokenId,
  verifyReadToken,
  type VerifyFailure,
  type VerifyResult,
} from './verify';
