import type { FlowTracing } from "./traced.ts";
import type { Span } from "../trace/span.ts";
import type { AnswersInFlight } from "../bot/answers-in-flight.ts";
import type { AskOrder, AskPlace } from "../bot/ask-order.ts";
import type { WorkerClient } from "../client/client.ts";
import type { DeliveryTarget } from "../wire/delivery-target.ts";

/**
 * What every flow takes and gives back: the front end's dependencies, who
 * asked, what only allowed people may do, and how a flow ended. A leaf, so the
 * flows import it and never each other's files for a type.
 */

/** What only allowed people may do; asking questions is never among them. */
export type GuardedAction = "run" | "approve" | "policy" | "reset";
export const GUARDED_ACTIONS: readonly GuardedAction[] = ["run", "approve", "policy", "reset"];

/**
 * Null when the asker may do `action`; else who may, in the platform's words
 * ("members of @oncall", "people with the Manage Channels permission").
 */
export type Permit = (action: GuardedAction) => Promise<string | null>;

export interface FlowDeps {
  worker: WorkerClient;
  /** One line per failure, for the operator. */
  log(line: string): void;
  /** Told after a turn used a room, for a front end that remembers rooms it cleaned (Discord's cleaner). */
  roomUsed?(room: string): void;
  /** False: nobody runs or skips a command proposed for their own question (DUET_APPROVE_OWN=no); else they may. */
  approveOwn?: boolean;
  /**
   * Literal values never shown in chat (the bot's own tokens), besides the shared
   * patterns: bound once here, applied by the flow to everything it hands a surface.
   */
  secrets?: readonly string[];
  /** Answers grow in place as the turn runs where the surface can show that (DUET_STREAMING, default on). */
  streaming?: boolean;
  /** The largest file taken into or out of a workspace (DUET_FILE_MAX_BYTES, default DEFAULT_FILE_MAX_BYTES). */
  fileMaxBytes?: number;
  /** Answers being posted by this process, which its outbox delivery skips (the same object the DeliveryLoop gets). */
  answering?: AnswersInFlight;
  /** This process's asks to each room, sent in the order they were asked (one per process). */
  order?: AskOrder;
  /** Where the front end's spans go (absent: made and dropped; the ref on an error still names the trace the Worker was told). */
  tracing?: FlowTracing;
}

/** Who asked, where, and the delivery's id. */
export interface Asker {
  room: string;
  /** The platform's user id, kept with the message in the room's history. */
  user: string;
  /** The person's display name, for the model to tell people apart; absent where it could not be resolved. */
  name?: string;
  /** The person's email address, where the front end knows it (a pull request credits them with it). */
  email?: string;
  /** The platform's id for this delivery (event, interaction, a fresh id for the CLI): the Worker's idempotency key. */
  key: string;
  /** Whether this person may run, approve, change the policy or reset; everyone may when absent. */
  permit?: Permit;
  /**
   * This delivery's claim on `key` (CLAIM_HEADER): when another delivery of the
   * same event asked the room first, the ask posts nothing and ends "elsewhere".
   */
  claim?: string;
  /** Where the room keeps the answer for until it is confirmed posted (the outbox); absent, nothing is kept. */
  deliver?: DeliveryTarget;
  /** Where a scheduled ask's answers go (the channel, each run a new message); absent, they are kept in the room's history only. */
  scheduleTarget?: DeliveryTarget;
  /** The ask's place among this process's asks to its room, taken when the question arrived; absent, taken when it is asked. */
  inLine?: AskPlace;
  /** The place shows buttons a person can click (Slack, Discord): a reset of a room with pinned facts asks which with them. */
  buttons?: boolean;
  /** The platform event's span (ack, room lookup, claim under it): the ask's span is its child. */
  span?: Span;
}

/**
 * "answered": the answer was posted. "failed": the Worker failed or the platform
 * refused the answer. "elsewhere": the room refused this delivery's claim, as
 * another delivery of the same event asked first and answers it; nothing was posted.
 * "coming": the Worker went away mid-turn; the room finishes the turn and its
 * delivery posts the answer (where a note now says it is coming).
 */
export type Outcome = "answered" | "failed" | "elsewhere" | "coming";
