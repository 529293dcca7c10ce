/**
 * A JSON body checked against its typebox schema (the one the OpenAPI document shows): one
 * FieldError per failing field, located `body.<field>`. Pure.
 */
import type { TSchema, Static } from '@sinclair/typebox';
import { TypeCompiler, ValueErrorType, type TypeCheck, type ValueError } from '@sinclair/typebox/compiler';
import { EXTERNAL_ID_PATTERN, IDENTIFIER_PATTERN, type FieldError } from '@va/contracts';

const RULES: Record<string, string> = {
  [IDENTIFIER_PATTERN]: 'must be 1–255 characters of A-Z a-z 0-9 _ - . :',
  [EXTERNAL_ID_PATTERN]: 'must be 1–255 characters without control characters',
};

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

export type BodyResult<T extends TSchema> =
  { ok: true; value: Static<T> } | { ok: false; errors: FieldError[] };

export function checkBody<T extends TSchema>(schema: T, body: unknown): BodyResult<T> {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = TypeCompiler.Compile(schema)));
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    return {
      ok: false,
      errors: [
        {
          location: 'body',
          message: 'must be a JSON object',
          fix: 'Send Content-Type: application/json and a JSON object.',
        },
      ],
    };
  }
  if (check.Check(body)) return { ok: true, value: body as Static<T> };
  const known = Object.keys((schema as { properties?: object }).properties ?? {});
  const byField = new Map<string, FieldError>();
  for (const error of check.Errors(body)) {
    const location = `body.${error.path.replace(/^\//, '').split('/')[0] ?? ''}`;
    if (byField.has(location)) continue;
    byField.set(location, fieldError(location, error, known));
  }
  return { ok: false, errors: [...byField.values()] };
}

function fieldError(location: string, error: ValueError, known: string[]): FieldError {
  if (error.type === ValueErrorType.ObjectRequiredProperty) return { location, message: 'is required' };
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    return { location, message: 'is not a field of this request', fix: `Send only ${known.join(', ')}.` };
  }
  const pattern = typeof error.schema.pattern === 'string' ? RULES[error.schema.pattern] : undefined;
  return { location, message: pattern ?? plain(error.message) };
}

/** typebox's "Expected integer to be less or equal to 86400" → "must be less or equal to 86400". */
const plain = (message: string): string =>
  message.replace(/^Expected \w+ to be /, 'must be ').replace(/^Expected (\w+)$/, 'must be of type $1');
