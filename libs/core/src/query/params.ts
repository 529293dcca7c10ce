/**
 * Step 1 of parsing a query string: sort the raw (name, value) pairs into scalar and list
 * parameters. Reports unknown names and repeated scalars here, because the schema only
 * ever sees one value per scalar (docs/api.md#parameters).
 */
import { LIST_PARAMS, SCALAR_PARAMS, type FieldError } from '@va/contracts';

export type ScalarParam = (typeof SCALAR_PARAMS)[number];
export type ListParam = (typeof LIST_PARAMS)[number];

export interface CollectedParams {
  /** Scalars given exactly once, raw (percent-decoded) text. */
  scalars: Map<ScalarParam, string>;
  /**
   * Lists: every value split on commas, empty items dropped, duplicates dropped (first
   * occurrence kept). A list whose items are all empty is absent.
   */
  lists: Map<ListParam, string[]>;
  errors: FieldError[];
  /** Parameters that already have an error; later steps do not report them again. */
  failed: Set<string>;
}

const isScalar = (name: string): name is ScalarParam => (SCALAR_PARAMS as readonly string[]).includes(name);
const isList = (name: string): name is ListParam => (LIST_PARAMS as readonly string[]).includes(name);

const KNOWN = [...SCALAR_PARAMS, ...LIST_PARAMS].join(', ');

export function collectParams(pairs: Iterable<[string, string]>): CollectedParams {
  const scalarValues = new Map<ScalarParam, string[]>();
  const listItems = new Map<ListParam, Set<string>>(); // a Set keeps first-seen order and dedupes
  const unknown = new Set<string>();

  for (const [name, value] of pairs) {
    if (isScalar(name)) {
      const seen = scalarValues.get(name);
      if (seen) seen.push(value);
      else scalarValues.set(name, [value]);
    } else if (isList(name)) {
      const items = listItems.get(name) ?? new Set<string>();
      for (const item of value.split(',')) if (item !== '') items.add(item);
      listItems.set(name, items);
    } else {
      unknown.add(name);
    }
  }

  const errors: FieldError[] = [];
  const failed = new Set<string>();
  for (const name of unknown) {
    errors.push({
      location: `query.${name}`,
      message: `unknown parameter ${JSON.stringify(name)}`,
      fix: `remove it; the parameters are ${KNOWN}`,
    });
    failed.add(name);
  }

  const scalars = new Map<ScalarParam, string>();
  for (const [name, values] of scalarValues) {
    const [only] = values;
    if (values.length === 1 && only !== undefined) {
      scalars.set(name, only);
      continue;
    }
    errors.push({
      location: `query.${name}`,
      message: `${name} takes one value but was given ${values.length} times`,
      fix: `send ${name} once`,
    });
    failed.add(name);
  }

  const lists = new Map<ListParam, string[]>();
  for (const [name, items] of listItems) if (items.size > 0) lists.set(name, [...items]);
  return { scalars, lists, errors, failed };
}
