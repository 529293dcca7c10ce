import { Type } from '@sinclair/typebox';

/** CONTRACT §5: workspaceId, apiId, keyId, identity.id. Never contains `{`, `}` or whitespace. */
export const IDENTIFIER_PATTERN = '^[A-Za-z0-9_\\-.:]{1,255}$';
/** externalId: 1–255 chars, no control characters (C0 and DEL). */
export const EXTERNAL_ID_PATTERN = '^[^\\u0000-\\u001f\\u007f]{1,255}$';
/** A tag: 1–128 chars, no control characters, no comma (commas separate list items). */
export const TAG_PATTERN = '^[^\\u0000-\\u001f\\u007f,]{1,128}$';

/**
 * With a description of its use. A function rather than `{ ...Identifier, description }`: a spread
 * schema has an anonymous type whose symbol keys declaration files cannot name (the published
 * @va/client bundles these types).
 */
export const identifier = (description?: string) =>
  Type.String({
    pattern: IDENTIFIER_PATTERN,
    minLength: 1,
    maxLength: 255,
    ...(description && { description }),
  });
export const externalId = (description?: string) =>
  Type.String({
    pattern: EXTERNAL_ID_PATTERN,
    minLength: 1,
    maxLength: 255,
    ...(description && { description }),
  });

export const Identifier = identifier();
export const ExternalId = externalId();
export const Tag = Type.String({ pattern: TAG_PATTERN, minLength: 1, maxLength: 128 });
