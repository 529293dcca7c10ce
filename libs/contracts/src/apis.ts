import { Type, type Static } from '@sinclair/typebox';
import { identifier } from './identifiers';

/**
 * Answer of GET /v1/apis.list: the APIs the credential may read, sorted by apiId. A root key gets the
 * APIs of its workspace that its permissions let it read (api.*.read_api: all of them; api.<apiId>.read_api:
 * those), a read token the one API it was minted for.
 */
export const ApiList = Type.Object(
  {
    apis: Type.Array(
      Type.Object({ apiId: identifier('An API the credential may query with getVerifications.') }),
    ),
  },
  { $id: 'ApiList' },
);
export type ApiList = Static<typeof ApiList>;
