/** Reads a service's GET /metrics (Prometheus text format): the sum of a metric's samples over all labels. */
export type Samples = Map<string, number>;

export async function scrape(url: string): Promise<Samples> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return parseMetrics(await response.text());
}

export function parseMetrics(text: string): Samples {
  const sums: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const value = Number(match[3]);
    if (Number.isFinite(value)) sums.set(match[1]!, (sums.get(match[1]!) ?? 0) + value);
  }
  return sums;
}
