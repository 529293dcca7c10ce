/** A CubeQuery for tests: no filter, no group, cube k, with `over` on top. */
import type { CubeQuery } from '../read';

export const cubeQuery = (over: Partial<CubeQuery>): CubeQuery => ({
  cube: 'k',
  keys: null,
  identities: null,
  sets: null,
  group: { key: false, identity: false, set: false },
  ...over,
});
