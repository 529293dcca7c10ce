/** One GET against the query service, with the body parsed: for warm-ups, probes and look-ups. */
import type { Datapoint } from '@va/contracts';

export interface Reply {
  status: number;
  rows: Datapoint[];
  bytes: number;
  precision: string;
}

export async function getRows(baseUrl: string, path: string, rootKey: string): Promise<Reply> {
  const response = await fetch(`${baseUrl}${path}`, {
    headers: { authorization: `Bearer ${rootKey}` },
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (response.status !== 200)
    return { status: response.status, rows: [], bytes: text.length, precision: '' };
  return {
    status: 200,
    rows: JSON.parse(text) as Datapoint[],
    bytes: Buffer.byteLength(text),
    precision: response.headers.get('x-precision') ?? 'hour',
  };
}

/** Like getRows, but anything but 200 is an error (with the body, which says why). */
export async function getRowsOk(baseUrl: string, path: string, rootKey: string): Promise<Reply> {
  const reply = await getRows(baseUrl, path, rootKey);
  if (reply.status !== 200) throw new Error(`GET ${path}: HTTP ${reply.status}`);
  return reply;
}
