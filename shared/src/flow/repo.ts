import type { DuetCommand } from "../commands/commands.ts";
import { REPO_WORDS } from "../words/repo.ts";
import { attempt, outcome } from "./attempt.ts";
import { guarded } from "./control.ts";
import { redacting } from "./redacting.ts";
import { show } from "./audience.ts";
import type { Reply } from "./reply.ts";
import type { ChatSurface } from "./surface.ts";
import type { Asker, FlowDeps, Outcome } from "./types.ts";

/**
 * `/duet repo`: the room's repository, once for every front end. Showing it
 * is for the asker; linking and unlinking are allowed to whoever may change
 * the run policy and said to everyone, since every turn here then works on
 * it; syncing is below. A typing mistake is one line for the asker and never
 * reaches the Worker.
 */
export async function repo(deps: FlowDeps, surface: ChatSurface, asker: Asker, command: Extract<DuetCommand, { kind: "repo" }>): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  if ("problem" in command) return outcome(true, await show(surface, "repo", false, { kind: "error", text: command.problem, code: "invalid_request" }));
  const change = command.change;
  if (!change) {
    const { reply, ok } = await tried(deps, asker.room, async () => ({ kind: "repo", repo: await deps.worker.repo(asker.room) }));
    return outcome(ok, await show(surface, "repo", false, reply));
  }
  if (change === "sync") return sync(deps, surface, asker);
  return guarded(
    surface,
    asker,
    "policy",
    async () => {
      const { reply, ok } = await tried(deps, asker.room, async (): Promise<Reply> => {
        if (change !== "unlink") {
          const linked = await deps.worker.setRepo(asker.room, { ...change, userId: asker.user });
          return { kind: "repo", repo: linked, event: { did: "linked", by: asker.user } };
        }
        const before = await deps.worker.repo(asker.room);
        // Only the room's own link is removed: a thread's channel's is unlinked in the channel.
        if (before.repo === null || before.source !== "room") return { kind: "repo", repo: before, event: { did: "nothing-to-unlink" } };
        const after = await deps.worker.removeRepo(asker.room, asker.user);
        return { kind: "repo", repo: after, event: { did: "unlinked", by: asker.user, was: before.repo } };
      });
      // Nothing to unlink changed nothing: only the asker hears.
      const shared = ok && reply.kind === "repo" && reply.event?.did !== "nothing-to-unlink";
      return outcome(ok, await show(surface, "repo", shared, reply));
    },
    REPO_WORDS.refusedWhat,
  );
}

/**
 * `/duet repo sync`: checks the repository out at repo/ now, or fetches into
 * the checkout there, for whoever may run commands (it runs git in the room's
 * sandbox, as a command does); said to everyone, since every turn here then
 * works on it. One call: the Worker refuses a room with no repository with
 * its own line (not_found, shown as it is).
 */
async function sync(deps: FlowDeps, surface: ChatSurface, asker: Asker): Promise<Outcome> {
  return guarded(
    surface,
    asker,
    "run",
    async () => {
      const { reply, ok } = await tried(deps, asker.room, async (): Promise<Reply> => ({ kind: "repo", repo: await deps.worker.syncRepo(asker.room), event: { did: "synced", by: asker.user } }));
      return outcome(ok, await show(surface, "repo", ok, reply));
    },
    REPO_WORDS.refusedSync,
  );
}

/** The repository routes' own refusals are sentences meant for the person (the App's install link, GitHub's rate limit). */
const REPO_SAYS = ["not_found", "github_error"] as const;

const tried = (deps: FlowDeps, room: string, call: () => Promise<Reply>) => attempt(deps, "repo", room, call, { asSaid: REPO_SAYS });
