import { DuetError } from "../wire/errors.ts";
import { failure, outcome } from "./attempt.ts";
import { guarded } from "./control.ts";
import { redacting } from "./redacting.ts";
import type { ChatSurface, PostedRef } from "./surface.ts";
import type { Asker, FlowDeps, Outcome } from "./types.ts";
import { show } from "./audience.ts";

/**
 * A reset in a room that remembers (pinned facts, a rolling summary of its
 * earlier conversation) asks which: "Reset, keep memory", "Reset everything"
 * or "Cancel". The question is posted for everyone
 * in the place, and anyone who may reset may answer it (not only who asked):
 * the choice is the reset itself, so it is guarded the same way. Each button
 * names when the room was last reset as it was asked (`resetAt`); the Worker
 * refuses a reset when the room was reset since, so a second click, a click on
 * an old question or two people clicking at once reset the room once.
 */

export type ResetChoice = "keep" | "wipe" | "cancel";

/** A click on a reset's question: the choice, the `resetAt` its button names, and the message that asked. */
export interface ResetClick {
  choice: ResetChoice;
  resetAt: number;
  message: PostedRef;
}

/**
 * Posts the question when the room keeps pinned facts or a summary, and answers
 * how that went; null when it has neither (or the Worker could not say), and the reset
 * goes on as it always did.
 */
export async function askBeforeReset(deps: FlowDeps, surface: ChatSurface, asker: Asker): Promise<Outcome | null> {
  let memory;
  try {
    memory = await deps.worker.memory(asker.room);
  } catch (err) {
    deps.log(`reading the pinned facts before a reset in ${asker.room} failed: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
  const summary = memory.summary === true;
  if (!memory.facts.length && !summary) return null;
  const posted = await show(surface, "reset", true, { kind: "reset-ask", user: asker.user, facts: memory.facts.length, summary, resetAt: memory.resetAt ?? 0 });
  return outcome(true, posted);
}

/** A person's click on a reset's question: cancels, or resets keeping or wiping the facts, and shows it in place of the buttons. */
export async function chooseReset(deps: FlowDeps, surface: ChatSurface, asker: Asker, click: ResetClick): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  return guarded(surface, asker, "reset", async () => {
    if (click.choice === "cancel") {
      const reply = { kind: "reset-cancelled", user: asker.user } as const;
      return outcome(true, (await surface.edit(click.message, reply)) || (await surface.post(reply)));
    }
    let errors: string[];
    try {
      const res = await deps.worker.cleanup(asker.room, { userId: asker.user, keepMemory: click.choice === "keep", ifResetAt: click.resetAt });
      errors = res.errors ?? [];
    } catch (err) {
      // Reset since the question was asked (another click), or any failure: nothing more changed, so only the clicker hears.
      await show(surface, "decide", false, failure(deps, "reset", asker.room, err));
      return err instanceof DuetError && err.code === "already_reset" ? "answered" : "failed";
    }
    deps.roomUsed?.(asker.room);
    const reply = { kind: "reset", user: asker.user, errors, facts: click.choice === "keep" ? "kept" : "wiped" } as const;
    return outcome(true, (await surface.edit(click.message, reply)) || (await surface.post(reply)));
  });
}
