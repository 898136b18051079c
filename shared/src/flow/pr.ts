import type { DuetCommand } from "../commands/commands.ts";
import type { DeliveryItem } from "../wire/delivery.ts";
import { readPrArgs } from "../commands/pr-command.ts";
import { DuetError } from "../wire/errors.ts";
import type { PrCredit } from "../wire/pr-schemas.ts";
import { PR_WORDS, sentence } from "../words/pr.ts";
import { failure, outcome } from "./attempt.ts";
import { guarded } from "./control.ts";
import { redacting } from "./redacting.ts";
import { show } from "./audience.ts";
import type { Reply } from "./reply.ts";
import type { ChatSurface, PostedRef } from "./surface.ts";
import type { Asker, FlowDeps, Outcome } from "./types.ts";

/**
 * `/duet pr` and the Open and Skip clicks on what it proposes, once for every
 * front end. Proposing pushes nothing, so anyone here may: the proposal is
 * posted for the thread to see. Opening pushes, so a click follows the run
 * policy as a command does: under `approve` only someone allowed to approve
 * may open or skip; under `auto` whoever may run commands here (the asker
 * among them). A refused click changes nothing and is told to the clicker
 * alone.
 */
export async function pr(deps: FlowDeps, surface: ChatSurface, asker: Asker, command: Extract<DuetCommand, { kind: "pr" }>): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  if ("problem" in command) return outcome(true, await show(surface, "pr", false, { kind: "error", text: command.problem, code: "invalid_request" }));
  const credit: PrCredit | undefined = asker.name ? { name: asker.name.slice(0, 100), ...(asker.email ? { email: asker.email } : {}) } : undefined;
  try {
    const proposal = await deps.worker.proposePr(asker.room, { userId: asker.user, ...(command.title ? { title: command.title } : {}), ...(credit ? { credit } : {}) });
    deps.roomUsed?.(asker.room);
    return outcome(true, await show(surface, "pr", true, { kind: "pr-proposal", proposal, room: asker.room }));
  } catch (err) {
    return outcome(false, await show(surface, "pr", false, await whyNot(deps, asker.room, err)));
  }
}

/**
 * An answer the outbox delivered (its bot died mid-turn) ended with the
 * model's `<pr>`: its change is proposed after it, in the place it was
 * posted, as after a live answer. The front end calls it once per answer
 * (see DeliveryLoop). An answer without `<pr>` proposes nothing.
 */
export async function proposeDelivered(deps: FlowDeps, surface: ChatSurface, item: DeliveryItem): Promise<Outcome | null> {
  if (!item.answer.pr) return null;
  // A scheduled run's answer was nobody's ask: the proposal is then Duet's own.
  const asker: Asker = { room: item.roomId, user: item.userId ?? "duet", key: item.key };
  return pr(deps, surface, asker, { kind: "pr", ...readPrArgs(item.answer.pr.title ?? "") });
}

/**
 * Why there is nothing to propose, in one line: no repository (what links
 * one), none checked out yet, nothing changed; any other failure in the
 * shared words.
 */
async function whyNot(deps: FlowDeps, room: string, err: unknown): Promise<Reply> {
  if (err instanceof DuetError && err.code === "nothing_changed") return { kind: "hint", text: sentence(err.message) };
  if (err instanceof DuetError && err.code === "not_found") {
    const view = await deps.worker.repo(room).catch(() => null);
    if (view?.repo === null) return { kind: "pr-no-repo" };
    if (view && !view.checkout) return { kind: "hint", text: PR_WORDS.notCheckedOut(view.repo) };
  }
  return failure(deps, "pr", room, err, { asSaid: GITHUB_SAYS });
}

/** GitHub's refusals (a push refused, a rate limit, the App's credentials) are sentences the Worker wrote for the person: shown as said, with their ref. */
const GITHUB_SAYS = ["github_error"] as const;

/** An Open or Skip click on a proposal: which one, and the message that shows it; `threadUrl` is where the pull request links back to. */
export interface PrClick {
  proposalId: string;
  decision: "open" | "skip";
  message: PostedRef;
  threadUrl?: string;
}

/**
 * Opens or skips a proposal for a person the run policy allows. Open: Duet
 * pushes and opens (or updates) the pull request, and the proposal's message
 * shows its link in place of its buttons. The thread learns of it by that
 * edit alone, which is the same whichever click makes it: a click the Worker
 * answers `already` (a click at the same moment, or one after the first's
 * answer never reached the thread: its bot died, the edit failed) makes the
 * same edit again, so the thread ends up showing the link once. Skip: the
 * proposal is dropped and its buttons go. A second click is also told to the
 * clicker alone, as are a skipped or replaced proposal and a failure.
 */
export async function prClick(deps: FlowDeps, surface: ChatSurface, asker: Asker, click: PrClick): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  let runPolicy;
  try {
    runPolicy = (await deps.worker.policy(asker.room)).runPolicy;
  } catch (err) {
    await show(surface, "decide", false, failure(deps, "pr click", asker.room, err));
    return "failed";
  }
  return guarded(
    surface,
    asker,
    runPolicy === "approve" ? "approve" : "run",
    async () => {
      try {
        if (click.decision === "skip") {
          await deps.worker.skipPr(asker.room, click.proposalId, { userId: asker.user });
          return outcome(true, await surface.edit(click.message, { kind: "pr-decided", proposalId: click.proposalId, by: asker.user }));
        }
        const opened = await deps.worker.openPr(asker.room, click.proposalId, { userId: asker.user, ...(click.threadUrl ? { threadUrl: click.threadUrl } : {}) });
        // Named for the click that pushed, whichever click shows it.
        const shown = await surface.edit(click.message, { kind: "pr-decided", proposalId: click.proposalId, by: opened.by ?? asker.user, opened });
        if (opened.already) return outcome(true, await show(surface, "decide", false, { kind: "hint", text: PR_WORDS.alreadyOpened(opened.url) }));
        deps.roomUsed?.(asker.room);
        if (!shown) await show(surface, "decide", false, { kind: "hint", text: PR_WORDS.openedNotShown(opened.url) });
        return outcome(true, shown);
      } catch (err) {
        if (err instanceof DuetError && (err.code === "not_found" || err.code === "already_decided")) {
          deps.log(`pr click in ${asker.room} refused: ${err.message}`);
          await show(surface, "decide", false, { kind: "hint", text: err.code === "not_found" ? PR_WORDS.stale : sentence(err.message) });
          return "failed";
        }
        await show(surface, "decide", false, failure(deps, "pr click", asker.room, err, { asSaid: GITHUB_SAYS }));
        return "failed";
      }
    },
    PR_WORDS.refusedWhat,
  );
}
