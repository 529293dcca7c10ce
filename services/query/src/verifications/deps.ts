/** What answering a getVerifications request needs (its own module: answer.ts and read-answer.ts both use it). */
import type { RedisClient } from '@va/store';
import type { Config } from '@va/config';
import type { SectionStore } from '@va/store';
import type { DictionaryCache } from './dictionary-cache';

export interface VerificationsDeps {
  redis: RedisClient;
  config: Pick<Config, 'keyPrefix' | 'maxRows' | 'retention' | 'readTokenKeys' | 'queryMaxCost'>;
  now: () => number;
  dictionaries: DictionaryCache;
  /** Decoded sealed sections kept between queries (section-cache.ts of @va/store); none = fetch every time. */
  sections?: SectionStore;
}

/** What reading needs (a worker of the pool has no use for the read-token keys). */
export type ReadDeps = Omit<VerificationsDeps, 'config'> & {
  config: Pick<Config, 'keyPrefix' | 'maxRows' | 'retention' | 'queryMaxCost'>;
};
