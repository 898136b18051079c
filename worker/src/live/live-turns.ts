import { DuetError, type TurnStreamEvent } from "@duet/shared";
import type { Outcome } from "../outcome.ts";
import { hangUpSafe, sseStream } from "./sse.ts";
import { StopSwitch, TurnStopped } from "./stop.ts";
import { TurnChannel } from "./turn-channel.ts";

/** An answer to a streamed request: the SSE stream, or (refused, or nothing to stream) a JSON Outcome. */
export type LiveOutcome = Outcome & { stream?: ReadableStream<Uint8Array> };

/**
 * A room's live turns: each running turn's channel (so a retry with the same
 * key follows it), and the stop switch of the one that runs.
 */
export class LiveTurns {
  private readonly joinable = new Map<string, TurnChannel>();
  private readonly stops = new StopSwitch();

  /** The channel of the running turn that `key` names, if it still runs. */
  find(key: string): TurnChannel | undefined {
    return this.joinable.get(key);
  }

  /** Makes `channel` joinable under `key` until `answer` settles. */
  track(key: string, channel: TurnChannel, answer: Promise<unknown>): void {
    this.joinable.set(key, channel);
    void answer.finally(() => this.joinable.delete(key)).catch(() => undefined);
  }

  /**
   * Runs `work` as the room's current turn. Its events go to `channel`, which
   * then ends with `done` (the answer's body) or `error`; `stop` aborts the
   * signal `work` gets.
   */
  async run(turnId: string, channel: TurnChannel, work: (stop: AbortSignal, emit: (e: TurnStreamEvent) => void) => Promise<Outcome>): Promise<Outcome> {
    const stop = this.stops.begin(turnId);
    try {
      const outcome = await work(stop, (e) => channel.publish(e));
      channel.publish({ event: "done", data: outcome.body as Extract<TurnStreamEvent, { event: "done" }>["data"] });
      return outcome;
    } catch (err) {
      channel.publish({ event: "error", data: errorEventOf(err) });
      throw err;
    } finally {
      this.stops.end(turnId);
    }
  }

  /**
   * Runs `work` (an approved command) as the room's current work, so a stop
   * aborts the signal it gets just as it would a turn's; says who stopped it
   * when someone did.
   */
  async runStoppable<T>(id: string, work: (stop: AbortSignal) => Promise<T>): Promise<{ result: T; stopped?: TurnStopped }> {
    const stop = this.stops.begin(id);
    try {
      const result = await work(stop);
      return stop.reason instanceof TurnStopped ? { result, stopped: stop.reason } : { result };
    } finally {
      this.stops.end(id);
    }
  }

  /** Stops the running turn; false when none runs. */
  stop(by?: string): boolean {
    return this.stops.stop(by);
  }
}

/** The events a client reads only when it says so (`STREAM_EVENTS_HEADER`): a client older than them refuses an event it does not know. */
export interface StreamOptions {
  /** The turn waited behind others (`queued`, its first event). */
  queued?: boolean;
  /** The client shows the answer whole (STREAM_TEXT_HEADER): the model answers whole, its text one event. */
  whole?: boolean;
}

/**
 * A stream of `channel` for one client; a retry that joined a turn gets its
 * `done` marked as replayed. Optional events the client did not ask for are
 * left out (each of its reconnects leaves out the same, so it counts the
 * events it was handed alike).
 */
export function streamOf(channel: TurnChannel, joined: boolean, accepts: StreamOptions = {}): ReadableStream<Uint8Array> {
  const events = accepts.queued ? channel.subscribe() : withoutQueued(channel.subscribe());
  return hangUpSafe(sseStream(joined ? markReplayed(events) : events));
}

async function* withoutQueued(events: AsyncIterable<TurnStreamEvent>): AsyncGenerator<TurnStreamEvent, void> {
  for await (const e of events) if (e.event !== "queued") yield e;
}

/** A stored answer as a stream: one `done`. */
export function storedStream(body: unknown): ReadableStream<Uint8Array> {
  const channel = new TurnChannel();
  channel.publish({ event: "done", data: body as Extract<TurnStreamEvent, { event: "done" }>["data"] });
  return hangUpSafe(sseStream(channel.subscribe()));
}

async function* markReplayed(events: AsyncIterable<TurnStreamEvent>): AsyncGenerator<TurnStreamEvent, void> {
  for await (const e of events) yield e.event === "done" ? { event: "done", data: { ...e.data, replayed: true } } : e;
}

/** The error event: the same vocabulary as a JSON error (code, a message a person can act on, retryable). */
function errorEventOf(err: unknown): Extract<TurnStreamEvent, { event: "error" }>["data"] {
  if (err instanceof DuetError) {
    return { code: err.code, message: err.message, retryable: err.retryable, ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}) };
  }
  return { code: "internal", message: "internal error", retryable: true };
}
