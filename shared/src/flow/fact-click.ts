import { failure, outcome } from "./attempt.ts";
import { redacting } from "./redacting.ts";
import type { ChatSurface, PostedRef } from "./surface.ts";
import type { Asker, FlowDeps, Outcome } from "./types.ts";
import { show } from "./audience.ts";

/**
 * Pin or Dismiss on a fact the model proposed (`<remember>`). Anyone in the
 * room may click, as anyone may pin a fact by typing it; the fact is pinned in
 * the clicker's name (and audited so), and the proposal's buttons become a line
 * saying who pinned or dismissed it. A proposal already taken (a second click,
 * a reset room, a forged id) or a full room is told to the clicker only.
 */

export interface FactClick {
  proposalId: string;
  decision: "pin" | "dismiss";
  message: PostedRef;
}

export async function decideFact(deps: FlowDeps, surface: ChatSurface, asker: Asker, click: FactClick): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  let decided;
  try {
    if (click.decision === "pin") {
      const out = await deps.worker.pinProposed(asker.room, click.proposalId, { userId: asker.user, ...(asker.name ? { userName: asker.name } : {}) });
      decided = { fact: out.pinned.text, n: out.pinned.n, already: out.already };
    } else {
      const out = await deps.worker.dismissProposed(asker.room, click.proposalId);
      decided = { fact: out.dismissed.fact };
    }
  } catch (err) {
    await show(surface, "decide", false, failure(deps, click.decision === "pin" ? "pinning a proposed fact" : "dismissing a proposed fact", asker.room, err));
    return "failed";
  }
  const reply = { kind: "fact-decided", id: click.proposalId, decision: click.decision, user: asker.user, ...decided } as const;
  return outcome(true, (await surface.edit(click.message, reply)) || (await surface.post(reply)));
}
