import { guard, type Outcome } from "../outcome.ts";
import { LiveTurns } from "../live/live-turns.ts";
import type { LedgerTurn, TurnKind } from "../storage/turn-ledger.ts";
import { NO_TRACING, type RoomTracing } from "../tracing.ts";
import { AskLine } from "./ask-line.ts";
import { AwakeQueue } from "./awake-queue.ts";
import { Replays } from "./replay.ts";
import type { RoomParts } from "./room-parts.ts";
import type { TurnDeps } from "./run-turn.ts";
import type { QueuePlace } from "./turn-queue.ts";

/**
 * What every kind of a room's work shares: the room's parts, its one queue
 * (which keeps the room awake while it holds work), the replays by key, the
 * running turns a stop can reach, and the epoch a clean-up bumps so work that
 * started before it writes nothing into the clean room.
 */
export class TurnWork {
  readonly queue: AwakeQueue;
  readonly replays = new Replays();
  /** The order each front end's asks join the queue in. */
  readonly line = new AskLine();
  readonly live = new LiveTurns();
  /** Bumped by a clean-up: a turn that started before a DELETE must not write into the clean room. */
  epoch = 0;

  constructor(readonly room: RoomParts) {
    this.queue = new AwakeQueue(room.setAlarm);
  }

  get tracing(): RoomTracing {
    return this.room.tracing ?? NO_TRACING;
  }

  /**
   * The room's deps for one piece of work, with the workspace saved once the
   * room's queue is done: work waiting behind this one will save for both.
   */
  /** `person`: who the work's commands run for (the sandbox shares its slots by person). */
  deps(person?: string | null): TurnDeps {
    const { saves, ...all } = this.room.deps();
    const deps = person ? { ...all, person } : all;
    if (!saves) return deps;
    const saveWorkspace = (changed: boolean): Promise<string | null> => {
      if (changed) saves.markChanged();
      return this.queue.waitingCount > 0 ? Promise.resolve(null) : saves.flush();
    };
    return { ...deps, saveWorkspace };
  }

  /** What `accept` records for work admitted to `place`; the place is given up when that fails. */
  accept<T>(place: QueuePlace, accept: () => T): T {
    try {
      return accept();
    } catch (err) {
      place.cancel();
      throw err;
    }
  }

  /** Runs `work` for `turn` in its place, as an Outcome. */
  start<T extends LedgerTurn | null>(turn: T, place: QueuePlace, work: (turn: T) => Promise<Outcome>): Promise<Outcome> {
    return guard(() => place.run(() => work(turn)));
  }
}

/** The key a kind of work's replays and running turns are found under. */
export const replayKey = (kind: TurnKind, key: string) => `${kind}:${key}`;
