import { attempt, outcome } from "./attempt.ts";
import type { ChatSurface } from "./surface.ts";
import type { Asker, FlowDeps, Outcome } from "./types.ts";
import { redacting } from "./redacting.ts";
import { show } from "./audience.ts";

/**
 * The room's pinned facts, once for every front end. Anyone in the room may
 * pin or unpin one (both are audited), and everyone sees it happen, since it
 * changes what Duet keeps in mind for all of them; the list is the asker's.
 */

export async function remember(deps: FlowDeps, surface: ChatSurface, asker: Asker, fact: string): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  const { reply, ok } = await attempt(deps, "remember", asker.room, async () => {
    const out = await deps.worker.remember(asker.room, { fact, userId: asker.user, ...(asker.name ? { userName: asker.name } : {}) });
    return { kind: "memory", memory: out, pinned: { fact: out.pinned, already: out.already, user: asker.user } };
  });
  // A fact found already pinned changed nothing: only the person who tried is told.
  const changed = ok && reply.kind === "memory" && !reply.pinned?.already;
  return outcome(ok, await show(surface, "remember", changed, reply));
}

export async function memory(deps: FlowDeps, surface: ChatSurface, asker: Asker): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  const { reply, ok } = await attempt(deps, "memory", asker.room, async () => ({ kind: "memory", memory: await deps.worker.memory(asker.room) }));
  return outcome(ok, await show(surface, "memory", ok, reply));
}

export async function forget(deps: FlowDeps, surface: ChatSurface, asker: Asker, n: number): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  const { reply, ok } = await attempt(deps, "forget", asker.room, async () => {
    const out = await deps.worker.forget(asker.room, n, asker.user);
    return { kind: "memory", memory: out, forgotten: { fact: out.forgotten, user: asker.user } };
  });
  return outcome(ok, await show(surface, "forget", ok, reply));
}
