/**
 * Step 3: validate the coerced query against the typebox schema of libs/contracts (the one
 * source of truth for types, ranges, patterns and enums) and turn each failure into one
 * FieldError whose location names the parameter. Messages are written from the failing
 * schema node itself, so a change to the schema changes the message with it.
 */
import { Type, type TPartial, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, ValueErrorType, type TypeCheck, type ValueError } from '@sinclair/typebox/compiler';
import {
  EXTERNAL_ID_PATTERN,
  IDENTIFIER_PATTERN,
  MAX_TIME_MS,
  ORDER_BY,
  TAG_PATTERN,
  TEXT_RULE,
  verificationsQuerySchema,
  type FieldError,
} from '@va/contracts';

type QuerySchema = ReturnType<typeof verificationsQuerySchema>;
type PartialQuerySchema = TPartial<QuerySchema>;

export interface QueryCheckers {
  /** The whole query. */
  full: TypeCheck<QuerySchema>;
  /** Every parameter optional: checks (and types) the parameters that passed on their own. */
  partial: TypeCheck<PartialQuerySchema>;
}

const checkersByMaxRows = new Map<number, QueryCheckers>();

/** Compiled once per row cap (the cap is limit's maximum); compiling costs, checking is cheap. */
export function queryCheckers(maxRows: number): QueryCheckers {
  let checkers = checkersByMaxRows.get(maxRows);
  if (!checkers) {
    const schema = verificationsQuerySchema(maxRows);
    checkers = { full: TypeCompiler.Compile(schema), partial: TypeCompiler.Compile(Type.Partial(schema)) };
    checkersByMaxRows.set(maxRows, checkers);
  }
  return checkers;
}

/** Plain-language rules of the string patterns (a regex is no help to a caller). */
const PATTERN_RULES: Record<string, string> = {
  [IDENTIFIER_PATTERN]: '1–255 characters of A-Z a-z 0-9 _ - . :',
  [EXTERNAL_ID_PATTERN]: `1–255 characters with ${TEXT_RULE}`,
  [TAG_PATTERN]: `1–128 characters without commas and with ${TEXT_RULE}`,
};

/** What a schema node accepts, in words. */
function expected(schema: TSchema): string {
  if (Array.isArray(schema.anyOf)) {
    const variants = schema.anyOf as TSchema[];
    const literals = variants.filter((s) => 'const' in s).map((s) => String(s.const));
    if (literals.length === variants.length) return `one of ${literals.join(', ')}`;
    // start/end: an integer or null; null is the "absent" spelling, described in the fix.
    return variants
      .filter((s) => s.type !== 'null')
      .map(expected)
      .join(' or ');
  }
  if (schema.type === 'integer') return `an integer from ${schema.minimum} to ${schema.maximum}`;
  if (schema.type === 'string' && typeof schema.pattern === 'string') {
    return PATTERN_RULES[schema.pattern] ?? `text matching ${schema.pattern}`;
  }
  return String(schema.type);
}

/** Echo a value back safely: quoted, control characters escaped, long text cut. */
function shown(value: unknown): string {
  if (typeof value !== 'string') return String(value);
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

const FIXES = (maxRows: number): Record<string, string> => ({
  apiId: 'send the id of the API to query, e.g. apiId=api_123',
  externalId: 'send the externalId exactly as your verifications carry it',
  keyId: 'send key ids repeated or comma-separated, e.g. keyId=key_1,key_2',
  tag: 'send tags repeated (tag=a&tag=b) or comma-separated (tag=a,b)',
  region: 'send regions repeated (region=a&region=b) or comma-separated (region=a,b), each 1–255 characters',
  start: `send unix milliseconds from 0 to ${MAX_TIME_MS}, e.g. start=1735689600000, or leave start out`,
  end: `send unix milliseconds from 0 to ${MAX_TIME_MS}, or leave end out for now`,
  groupBy: 'use key, identity, tag or tags, region and at most one of hour, day, month, e.g. groupBy=key,day',
  limit: `send an integer from 1 to ${maxRows}, or leave limit out`,
  orderBy: `use one of ${ORDER_BY.join(', ')}, e.g. orderBy=total&order=desc`,
  order: 'use asc or desc',
});

function fieldError(param: string, isItem: boolean, error: ValueError, maxRows: number): FieldError {
  const fix = FIXES(maxRows)[param];
  const message =
    error.type === ValueErrorType.ObjectRequiredProperty
      ? `${param} is required`
      : isItem
        ? `every ${param} value must be ${expected(error.schema)}; got ${shown(error.value)}`
        : `${param} must be ${expected(error.schema)}; got ${shown(error.value)}`;
  return fix === undefined
    ? { location: `query.${param}`, message }
    : { location: `query.${param}`, message, fix };
}

/**
 * One FieldError per failing value: per scalar parameter, per list item. The schema may
 * report several failures of one value (too long and off-pattern); the first one speaks.
 * Parameters in `skip` were already reported by an earlier step.
 */
export function schemaErrors(
  checkers: QueryCheckers,
  input: Record<string, unknown>,
  skip: ReadonlySet<string>,
  maxRows: number,
): { errors: FieldError[]; failedParams: Set<string> } {
  const errors: FieldError[] = [];
  const failedParams = new Set<string>();
  if (checkers.full.Check(input)) return { errors, failedParams };
  const reportedPaths = new Set<string>();
  for (const error of checkers.full.Errors(input)) {
    const [, param = '', item] = error.path.split('/');
    if (skip.has(param) || reportedPaths.has(error.path)) continue;
    reportedPaths.add(error.path);
    failedParams.add(param);
    errors.push(fieldError(param, item !== undefined, error, maxRows));
  }
  return { errors, failedParams };
}
