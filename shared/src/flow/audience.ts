import type { DuetCommand } from "../commands/commands.ts";
import type { Reply } from "./reply.ts";
import type { ChatSurface, PostedRef } from "./surface.ts";

/**
 * Who sees each reply, decided here once for the flow and every front end: the
 * flow posts by it, Discord defers an interaction by it (Discord fixes a
 * reply's visibility before the answer exists), and help's "(only you see
 * it)" is read from it.
 */

/** Everyone in the place, or only the person who asked (Slack and Discord ephemeral messages). */
export type Audience = "everyone" | "asker";

/** What led to a reply: a command, a Run or Skip click, or a refusal of either. */
export type Said = DuetCommand["kind"] | "decide" | "refusal";

/**
 * Per command, who sees its reply when it `done` something the place sees (an
 * answer, a new run policy or model, a schedule added or removed, a decided
 * proposal, a stop, a posted file), and `otherwise`: a read of a setting, a
 * refusal, a failure, nothing to do.
 */
const AUDIENCE: Record<Said, { done: Audience; otherwise: Audience }> = {
  // Asked and run in the open: the answer, or why there is none, is for everyone who saw the question.
  ask: { done: "everyone", otherwise: "everyone" },
  run: { done: "everyone", otherwise: "everyone" },
  reset: { done: "everyone", otherwise: "everyone" },
  // Changes what Duet does for all when it happens; a failure or "nothing to stop" changed nothing.
  stop: { done: "everyone", otherwise: "asker" },
  get: { done: "everyone", otherwise: "asker" },
  policy: { done: "everyone", otherwise: "asker" },
  model: { done: "everyone", otherwise: "asker" },
  repo: { done: "everyone", otherwise: "asker" },
  // A server added, removed or turned on changes what every turn here may call.
  tools: { done: "everyone", otherwise: "asker" },
  // A proposal is for the thread to see and click; nothing to propose is the asker's.
  pr: { done: "everyone", otherwise: "asker" },
  schedule: { done: "everyone", otherwise: "asker" },
  unschedule: { done: "everyone", otherwise: "asker" },
  decide: { done: "everyone", otherwise: "asker" },
  // Pinning or unpinning a fact changes what Duet keeps in mind for everyone here.
  remember: { done: "everyone", otherwise: "asker" },
  forget: { done: "everyone", otherwise: "asker" },
  // Reading the room's past or how to use Duet concerns the reader alone.
  history: { done: "asker", otherwise: "asker" },
  audit: { done: "asker", otherwise: "asker" },
  schedules: { done: "asker", otherwise: "asker" },
  usage: { done: "asker", otherwise: "asker" },
  memory: { done: "asker", otherwise: "asker" },
  help: { done: "asker", otherwise: "asker" },
  refusal: { done: "asker", otherwise: "asker" },
};

export function audienceOf(said: Said, done: boolean): Audience {
  return AUDIENCE[said][done ? "done" : "otherwise"];
}

/** Commands whose every reply only the asker sees, for help to say so. */
export function onlyAskerSees(kind: DuetCommand["kind"]): boolean {
  return AUDIENCE[kind].done === "asker" && AUDIENCE[kind].otherwise === "asker";
}

/**
 * Who will see a command's reply, known before it runs: a refusal and a read of
 * a setting (`policy`, `model` with nothing after them) are the asker's.
 */
export function commandAudience(command: DuetCommand, refused: boolean): Audience {
  if (refused) return audienceOf("refusal", false);
  const reads = (command.kind === "policy" && !command.runPolicy) || (command.kind === "model" && !command.model) || (command.kind === "repo" && !("change" in command && command.change)) || (command.kind === "tools" && !("change" in command && command.change)) || (command.kind === "pr" && "problem" in command);
  return audienceOf(command.kind, !reads);
}

/** Shows `reply` to whom the table says. */
export function show(surface: ChatSurface, said: Said, done: boolean, reply: Reply): Promise<PostedRef | null> {
  return audienceOf(said, done) === "everyone" ? surface.post(reply) : surface.postPrivate(reply);
}
