import { Type } from '@sinclair/typebox';
import { allowedTextChar } from './text';

/** docs/api.md#identifiers: workspaceId, apiId, keyId, identity.id. Never contains `{`, `}` or whitespace. */
export const IDENTIFIER_PATTERN = '^[A-Za-z0-9_\\-.:]{1,255}$';
/** externalId: 1–255 UTF-16 code units under the text rule (./text.ts). */
export const EXTERNAL_ID_PATTERN = `^${allowedTextChar()}+$`;
/** A tag: 1–128 UTF-16 code units under the text rule, and no comma (commas separate list items). */
export const TAG_PATTERN = `^${allowedTextChar(',')}+$`;

/**
 * With a description of its use. A function rather than `{ ...Identifier, description }`: a spread
 * schema has an anonymous type whose symbol keys declaration files cannot name (the published
 * @va/client bundles these types).
 */
export const identifier = (description?: string, examples?: string[]) =>
  Type.String({
    pattern: IDENTIFIER_PATTERN,
    minLength: 1,
    maxLength: 255,
    ...(description && { description }),
    ...(examples && { examples }),
  });
export const externalId = (description?: string, examples?: string[]) =>
  Type.String({
    pattern: EXTERNAL_ID_PATTERN,
    minLength: 1,
    maxLength: 255,
    ...(description && { description }),
    ...(examples && { examples }),
  });

export const Identifier = identifier();
export const ExternalId = externalId();
export const Tag = Type.String({ pattern: TAG_PATTERN, minLength: 1, maxLength: 128 });
/**
 * A region in a query's filter: any text of 1–255 characters, as the event's region (event.ts) has
 * no pattern. List items are split on commas, so a region holding a comma cannot be named.
 */
export const Region = Type.String({ minLength: 1, maxLength: 255 });
