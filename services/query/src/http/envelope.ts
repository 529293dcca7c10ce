/** The error envelope for every error kind (docs/api.md#errors). Pure. */
import { STATUS_CODES } from 'node:http';
import { ERROR_KINDS, type ErrorEnvelope, type ErrorKind, type FieldError } from '@va/contracts';

export interface EnvelopeInput {
  kind: ErrorKind;
  detail: string;
  requestId: string;
  docsUrl: string;
  errors?: FieldError[];
  /** HTTP status when it differs from the kind's (e.g. 415 reported as invalid_input). */
  status?: number;
}

export function errorEnvelope(input: EnvelopeInput): ErrorEnvelope {
  const status = input.status ?? ERROR_KINDS[input.kind].status;
  return {
    meta: { requestId: input.requestId },
    error: {
      title: input.status === undefined ? ERROR_KINDS[input.kind].title : (STATUS_CODES[status] ?? 'Error'),
      detail: input.detail,
      status,
      type: `${input.docsUrl}/${input.kind}`,
      errors: input.errors ?? [],
    },
  };
}

/** The kind and a client-safe detail for an HTTP status that fastify itself produced (4xx). */
export function kindOfStatus(status: number): { kind: ErrorKind; detail: string } {
  switch (status) {
    case 401:
      return { kind: 'unauthorized', detail: 'Authentication failed.' };
    case 403:
      return { kind: 'forbidden', detail: 'This request is not allowed.' };
    case 404:
      return { kind: 'not_found', detail: 'There is no such resource.' };
    case 405:
      return { kind: 'invalid_input', detail: 'This method is not supported here.' };
    case 413:
      return { kind: 'invalid_input', detail: 'The request is too large.' };
    case 415:
      return {
        kind: 'invalid_input',
        detail: 'The request body has an unsupported content type; send no body.',
      };
    default:
      return { kind: 'invalid_input', detail: 'The request is not valid.' };
  }
}
