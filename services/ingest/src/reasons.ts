/**
 * Why an event goes to the dead-letter topic (header `x-dlq-reason`). One code per rule of
 * docs/api.md#dead-letters; `x-dlq-detail` says more (the JSON path for `schema`).
 *
 *   too_large           the message value is over MAX_EVENT_BYTES (checked before parsing)
 *   not_json            empty value, or not parseable as JSON
 *   schema              valid JSON that breaks the event schema: not an object, a missing or mistyped
 *                       field, a bad identifier, a comma in a tag, a string too
 *                       long... (detail: "<path>: <message>", first failure only)
 *   invalid_text        a tag or identity.externalId breaks the text rule (@va/contracts text.ts): a lone
 *                       UTF-16 surrogate, a control character (C0, DEL, C1), a bidirectional control or
 *                       a line/paragraph separator (detail: "<path>: <what> U+XXXX at index <i>")
 *   unknown_outcome     outcome is a string but not one of the nine outcomes
 *   too_many_tags       more than 20 tags
 *   future_time         time more than 5 minutes after the worker's clock
 *   expired             time so old that no resolution keeps it (its month's end + month retention <= now)
 *   workspace_mismatch  the API is registered to another workspace (detail names neither workspace's data)
 */
export const DLQ_REASONS = [
  'too_large',
  'not_json',
  'schema',
  'invalid_text',
  'unknown_outcome',
  'too_many_tags',
  'future_time',
  'expired',
  'workspace_mismatch',
] as const;
export type DlqReason = (typeof DLQ_REASONS)[number];
