/**
 * Produce-to-push, the pure part (docs/benchmarks.md "Live updates"). The producer notes, per scope (an
 * API, or an API and one externalId), the scope's count after every batch that changed it and the time
 * just before that batch was sent: a mark. A stream notes each answer's arrival and its count (the sum of
 * `total` over its rows). A mark is pushed when the first answer with that count or a later one arrives:
 * counts only grow, so that answer is the first to include the batch.
 */

/** A scope's count after a batch, and when the batch was sent; or an answer's count and its arrival. */
export interface Stamp {
  at: number;
  total: number;
}

/** Running counts per scope, and the marks of the batches that changed them. */
export class MarkBook {
  private readonly totals = new Map<string, number>();
  private readonly marks = new Map<string, Stamp[]>();

  /** `counts`: events of each scope in one batch, sent at `at`. */
  record(at: number, counts: ReadonlyMap<string, number>): void {
    for (const [scope, n] of counts) {
      if (n <= 0) continue;
      const total = (this.totals.get(scope) ?? 0) + n;
      this.totals.set(scope, total);
      let list = this.marks.get(scope);
      if (!list) this.marks.set(scope, (list = []));
      list.push({ at, total });
    }
  }

  marksOf(scope: string): readonly Stamp[] {
    return this.marks.get(scope) ?? [];
  }

  totalOf(scope: string): number {
    return this.totals.get(scope) ?? 0;
  }
}

export interface PushLatencies {
  /** Milliseconds from each counted mark to the first answer that includes it. */
  latencies: number[];
  /** Counted marks no answer included. */
  unseen: number;
}

/**
 * Marks (ascending in time and count) against one stream's answers (in arrival order): for every mark
 * sent at or after `from`, the time to the first answer whose count reaches the mark's.
 */
export function pushLatencies(
  marks: readonly Stamp[],
  answers: readonly Stamp[],
  from = -Infinity,
): PushLatencies {
  const latencies: number[] = [];
  let unseen = 0;
  let a = 0;
  for (const mark of marks) {
    if (mark.at < from) continue;
    while (a < answers.length && answers[a]!.total < mark.total) a++;
    if (a === answers.length) unseen++;
    else latencies.push(answers[a]!.at - mark.at);
  }
  return { latencies, unseen };
}
