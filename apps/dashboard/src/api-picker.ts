/**
 * The API picker: which APIs it offers and which one is shown. A root key's choices come from
 * GET /v1/apis.list; a read token has its one API and nothing to pick. Pure.
 */
import type { Scope } from './queries';

export interface Picker {
  /** The option values, in order. */
  options: string[];
  /** The API the page shows ('' = none yet). */
  selected: string;
  /** A read token's API cannot be changed. */
  disabled: boolean;
}

/**
 * A link may name an API the list does not hold (another key's, or one registered since): it is offered
 * too, so that the page shows what the link asked for (the service then answers 403 or 404 if it must).
 * Without an API in the view the first listed one is shown, so a first-time user sees data at once.
 */
export function pickerOf(listed: readonly string[] | undefined, viewApiId: string, scope?: Scope): Picker {
  if (scope) return { options: [scope.apiId], selected: scope.apiId, disabled: true };
  const options = [...(listed ?? [])];
  if (viewApiId && !options.includes(viewApiId)) options.unshift(viewApiId);
  return { options, selected: viewApiId || (options[0] ?? ''), disabled: false };
}
