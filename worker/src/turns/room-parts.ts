import type { DuetError } from "@duet/shared";
import type { RoomControl } from "../control/room-control.ts";
import type { Outbox } from "../outbox/outbox.ts";
import type { WorkspaceSaves } from "../sandbox/workspace-saves.ts";
import type { TurnLedger } from "../storage/turn-ledger.ts";
import type { TurnUsage } from "../storage/turn-types.ts";
import type { TurnDeps } from "./run-turn.ts";
import type { RoomTracing } from "../tracing.ts";

/**
 * What a room gives each piece of work: everything a turn needs but when the
 * workspace is saved, which the turns decide (once their queue is done), from
 * the room's `saves` (none: nothing to save to).
 */
export type RoomDeps = Omit<TurnDeps, "saveWorkspace"> & { saves?: Pick<WorkspaceSaves, "markChanged" | "flush"> };

/** What the turns of one room need from the room object. */
export interface RoomParts {
  roomId: string;
  ledger: TurnLedger;
  /** Answers kept until a bot confirms it posted them. */
  outbox: Outbox;
  /** Registers the room with its parent once (a thread with its channel) before its first turn. */
  ensureRegistered: () => Promise<void>;
  /** The run policy (read per turn), the approvals and the audit trail. */
  control: RoomControl;
  /** Built per turn from the validated config; throws a DuetError or ConfigError when it cannot be. */
  deps: () => RoomDeps;
  /** Runs `fn` as one storage transaction (writes that must land together, or not at all). */
  atomically: (fn: () => void) => void;
  /** Arms the room's alarm for `at` at the latest (a Durable Object alarm: no row is written); one armed sooner, for a schedule, stays. */
  setAlarm: (at: number) => Promise<void>;
  /** Why a turn by this person may not start now (a daily token budget used up), or null. */
  overBudget?: (userId: string | null) => Promise<DuetError | null>;
  /** An answered turn's usage, told to where the person's budget is counted (across rooms). */
  counted?: (userId: string | null, usage: TurnUsage | undefined, at: number) => Promise<void>;
  /** A message turn was answered and joined the history: the room's background work after it (its summary) may begin; never awaited. */
  answered?: () => void;
  /** Where the room's spans go (none: tracing off). */
  tracing?: RoomTracing;
}
