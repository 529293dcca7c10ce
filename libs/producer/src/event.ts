/**
 * The typed event builder: fills what a verification service rarely has at hand (a request id,
 * the time) and validates the result with the event schema of @va/contracts, the one the ingest
 * worker decodes with, so that an event the builder accepts is not dead-lettered for its shape.
 */
import { randomUUID } from 'node:crypto';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { VerificationEvent } from '@va/contracts';

export type { VerificationEvent } from '@va/contracts';

/** What a caller gives: an event, where requestId (default: a random UUID) and time (default: now) may be left out. */
export type EventInput = Omit<VerificationEvent, 'requestId' | 'time'> & {
  requestId?: string;
  /** Unix milliseconds or a Date. */
  time?: number | Date;
};

export interface EventProblem {
  /** JSON pointer of the offending value, e.g. `/tags/2`. */
  path: string;
  message: string;
}

/** Thrown by buildEvent (and the producer's send) for an event the schema refuses. */
export class InvalidEventError extends Error {
  constructor(readonly problems: readonly EventProblem[]) {
    super(`invalid verification event: ${problems.map((p) => `${p.path || '/'} ${p.message}`).join('; ')}`);
    this.name = 'InvalidEventError';
  }
}

const checker = TypeCompiler.Compile(VerificationEvent);

/** The problems of `value` as a verification event ([] = valid). */
export function eventProblems(value: unknown): EventProblem[] {
  return [...checker.Errors(value)].map((e) => ({ path: e.path, message: e.message }));
}

/** Completes and validates an event; throws InvalidEventError with every problem found. */
export function buildEvent(input: EventInput, now: () => number = Date.now): VerificationEvent {
  const { time, requestId, ...rest } = input;
  const event = {
    ...rest,
    requestId: requestId ?? randomUUID(),
    time: time === undefined ? now() : time instanceof Date ? time.getTime() : time,
  };
  if (!checker.Check(event)) throw new InvalidEventError(eventProblems(event));
  return event;
}
