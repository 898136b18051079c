import { attempt, outcome } from "./attempt.ts";
import { guarded } from "./control.ts";
import type { ChatSurface } from "./surface.ts";
import type { Asker, FlowDeps, Outcome } from "./types.ts";
import { redacting } from "./redacting.ts";
import { show } from "./audience.ts";

/**
 * The room's model and its usage, once for every front end. Switching the
 * model is allowed to whoever may change the run policy, and said to
 * everyone, since it changes what answers them all; an unknown name is
 * refused by the Worker with the choices.
 */
export async function model(deps: FlowDeps, surface: ChatSurface, asker: Asker, name?: string): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  if (!name) {
    const { reply, ok } = await attempt(deps, "model", asker.room, async () => ({ kind: "model", ...(await deps.worker.model(asker.room)) }));
    return outcome(ok, await show(surface, "model", false, reply));
  }
  return guarded(
    surface,
    asker,
    "policy",
    async () => {
      const { reply, ok } = await attempt(deps, "model", asker.room, async () => {
        const set = await deps.worker.setModel(asker.room, { model: name, userId: asker.user });
        return { kind: "model", model: set.model, choices: set.choices, setBy: asker.user };
      });
      return outcome(ok, await show(surface, "model", ok, reply));
    },
    "switch the model here.",
  );
}

/** `/duet usage`: the room's model tokens today and this week, by person and model, and what the asker has left; for the asker only. */
export async function usage(deps: FlowDeps, surface: ChatSurface, asker: Asker): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  const { reply, ok } = await attempt(deps, "usage", asker.room, async () => ({ kind: "usage", usage: await deps.worker.usage(asker.room, asker.user) }));
  return outcome(ok, await show(surface, "usage", ok, reply));
}
