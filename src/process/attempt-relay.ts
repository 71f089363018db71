/**
 * HOOKLINE_WORKERS > 1: one child keeps the processes' attempt index (every attempt read once
 * for all of them, not once per child); the primary passes the other children's questions to it and its
 * answers back. This is the primary's side, apart from node:cluster so that it can be tested.
 */
import type { AttemptsAnswer, AttemptsRequest, PrimaryReply } from './messages';

/** A child as the relay sees it. */
export interface RelayPeer {
  send(message: AttemptsRequest | PrimaryReply): void;
}

export interface AttemptQueryRelayOptions {
  /** A question the keeper has not answered in this long is answered with an error (and forgotten). */
  timeoutMs: number;
}

interface Pending {
  asker: RelayPeer;
  id: string;
  timer: NodeJS.Timeout;
}

export class AttemptQueryRelay {
  private keeper: RelayPeer | undefined;
  private readonly pending = new Map<string, Pending>();
  private nextId = 0;

  constructor(private readonly options: AttemptQueryRelayOptions) {}

  /** The keeping child has started (its index answers from now on). */
  keeperStarted(keeper: RelayPeer): void {
    this.keeper = keeper;
  }

  /** The keeping child exited: what it was asked is answered with an error. */
  keeperGone(): void {
    this.keeper = undefined;
    for (const id of [...this.pending.keys()]) this.settle(id, { error: 'the attempt index restarted' });
  }

  /** A child's question: passed to the keeper, or answered with an error when there is none. */
  ask(asker: RelayPeer, request: AttemptsRequest): void {
    const keeper = this.keeper;
    if (!keeper) {
      asker.send({ id: request.id, error: 'the attempt index is starting' });
      return;
    }
    const id = `a${this.nextId++}`;
    const timer = setTimeout(
      () => this.settle(id, { error: 'the attempt index did not answer' }),
      this.options.timeoutMs,
    );
    timer.unref();
    this.pending.set(id, { asker, id: request.id, timer });
    keeper.send({ ...request, id });
  }

  /** The keeper's answer, passed back to whoever asked (unless it was already answered). */
  answered(answer: AttemptsAnswer): void {
    this.settle(answer.id, {
      ...(answer.found && { found: answer.found }),
      ...(answer.error !== undefined && { error: answer.error }),
    });
  }

  /** Questions passed on and not answered yet. */
  get waiting(): number {
    return this.pending.size;
  }

  private settle(id: string, reply: Omit<PrimaryReply, 'id'>): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    pending.asker.send({ ...reply, id: pending.id });
  }
}
