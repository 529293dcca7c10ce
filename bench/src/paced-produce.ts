/**
 * Live traffic at a steady rate, as the measurements of latency produce it (freshness, live updates,
 * alerts): a batch every 50 ms, sent without waiting for the acknowledgement of the ones before (up to 16
 * in flight), so that a slow broker delays the batches, not the clock they are due by.
 */
import type { Message, Producer } from 'kafkajs';

export const TICK_MS = 50;
const MAX_IN_FLIGHT = 16;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Tick {
  messages: Message[];
  /** Called when the broker acknowledged the batch. */
  acked?: () => void;
}

/**
 * Sends `rate` messages/s until `until` (unix ms). `tick(count)` builds each batch of `count` messages
 * just before its send (so a time it takes is the send's). Answers the messages sent and the seconds
 * from the first send to the last acknowledgement.
 */
export async function producePaced(
  producer: Producer,
  topic: string,
  pace: { rate: number; until: number },
  tick: (count: number) => Tick,
): Promise<{ sent: number; seconds: number }> {
  const perTick = Math.max(1, Math.round((pace.rate * TICK_MS) / 1000));
  const inFlight = new Set<Promise<void>>();
  const started = Date.now();
  let sent = 0;
  for (let n = 0; ; n++) {
    const due = started + n * TICK_MS;
    if (due >= pace.until) break;
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
    const { messages, acked } = tick(perTick);
    const p = producer.send({ topic, acks: -1, messages }).then(() => acked?.());
    sent += messages.length;
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
    if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  return { sent, seconds: (Date.now() - started) / 1000 };
}
