/** The contract's test vectors (the copy in libs/testkit/fixtures, or VECTORS_FILE). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { Datapoint, VerificationEvent } from '@va/contracts';

export interface Vectors {
  now: number;
  registeredApis: { workspaceId: string; apiId: string }[];
  events: VerificationEvent[];
  cases: {
    name: string;
    query: string;
    status: number;
    body: Datapoint[];
    headers?: Record<string, string>;
  }[];
  invalid: { name: string; query: string; status: number; type: string; anyLocationOf: string[] }[];
}

const here = dirname(fileURLToPath(import.meta.url));
const DEFAULT_FILE = join(here, '../fixtures/getVerifications.json');

export function loadVectors(file = process.env.VECTORS_FILE ?? DEFAULT_FILE): Vectors {
  return JSON.parse(readFileSync(file, 'utf8')) as Vectors;
}
