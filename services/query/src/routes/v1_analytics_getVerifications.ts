/**
 * GET /v1/analytics.getVerifications. The schema documents the route (OpenAPI) and shapes
 * the responses; the query string is validated by core's parseQuery on the raw pairs, so
 * that repeated parameters, comma lists and unknown parameters follow CONTRACT §3 exactly
 * (fastify's own querystring validation is switched off for this route).
 */
import { Type } from '@sinclair/typebox';
import { verificationsQuerySchema, type Datapoint, type ErrorEnvelope } from '@va/contracts';
import type { App } from '../http/app';
import { answerVerifications, type VerificationsDeps } from '../verifications/answer';

export const GET_VERIFICATIONS = '/v1/analytics.getVerifications';

const errorResponse = (description: string) =>
  Type.Unsafe<ErrorEnvelope>({ ...Type.Ref('ErrorEnvelope'), description });
const Rows = Type.Unsafe<Datapoint[]>({
  type: 'array',
  items: Type.Ref('Datapoint'),
  description: 'Datapoints after grouping, ordering and limit.',
  headers: {
    'X-Request-Id': { type: 'string', description: 'Id of the request (also in error envelopes).' },
    'X-Precision': {
      type: 'string',
      enum: ['day', 'month'],
      description:
        'Present when part of the range was older than the hour retention and was answered from day or month rollups.',
    },
  },
});

/** The query string of a raw request URL as ordered, percent-decoded pairs. */
export function queryPairs(url: string | undefined): URLSearchParams {
  const q = url === undefined ? -1 : url.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : url!.slice(q + 1));
}

export function getVerificationsRoute(app: App, deps: VerificationsDeps): void {
  app.get(
    GET_VERIFICATIONS,
    {
      schema: {
        operationId: 'getVerifications',
        summary: 'Counts of key verifications',
        description:
          'Counts of verification outcomes for one API, filtered by externalId, keys and tags, grouped by key, ' +
          'identity, tag or tag set and by hour, day or month. Lists may repeat the parameter or use commas. ' +
          'The header X-Precision (day or month) marks answers where part of the range was older than the ' +
          'hour retention and came from day or month rollups. With a read token, only its API and its ' +
          'externalId can be read (the externalId filter is then implied; another one is 403).',
        security: [{ rootKey: [] }, { readToken: [] }],
        querystring: verificationsQuerySchema(deps.config.maxRows),
        response: {
          200: Rows,
          '4xx': errorResponse(
            '401 unauthorized, 400 invalid_input (one errors[] entry per failure), 403 forbidden, 404 not_found',
          ),
          '5xx': errorResponse('500 internal_server_error'),
        },
      },
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const answer = await answerVerifications(deps, {
        authorization: request.headers.authorization,
        params: queryPairs(request.raw.url),
      });
      if (answer.precision !== 'hour') reply.header('x-precision', answer.precision);
      return answer.rows;
    },
  );
}
