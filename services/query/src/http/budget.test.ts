import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error';
import { ClientGone, withBudget } from './budget';

const never = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));

describe('withBudget', () => {
  it('answers with the work when it ends in time', async () => {
    await expect(withBudget(1_000, async () => 7)).resolves.toBe(7);
  });

  it('answers query_timeout when the budget runs out, and aborts the work', async () => {
    let seen: AbortSignal | undefined;
    const answer = withBudget(20, (signal) => ((seen = signal), new Promise(() => undefined)));
    await expect(answer).rejects.toSatisfy((e) => e instanceof ApiError && e.kind === 'query_timeout');
    expect(seen!.aborted).toBe(true);
  });

  it("answers at once with the cancel's reason (the client hung up), and aborts the work", async () => {
    let hangUp: ((reason: Error) => void) | undefined;
    let seen: AbortSignal | undefined;
    const answer = withBudget(
      10_000,
      (signal) => ((seen = signal), never(signal)),
      (abort) => (hangUp = abort),
    );
    hangUp!(new ClientGone());
    await expect(answer).rejects.toBeInstanceOf(ClientGone);
    expect(seen!.reason).toBeInstanceOf(ClientGone);
  });

  it('a cancel after the answer changes nothing', async () => {
    let hangUp: ((reason: Error) => void) | undefined;
    await expect(
      withBudget(
        10_000,
        async () => 1,
        (abort) => (hangUp = abort),
      ),
    ).resolves.toBe(1);
    hangUp!(new ClientGone()); // no unhandled rejection (vitest fails the run on one)
    await new Promise((resolve) => setTimeout(resolve, 5));
  });
});
