import { attempt, outcome } from "./attempt.ts";
import { guarded } from "./control.ts";
import type { ChatSurface } from "./surface.ts";
import type { Asker, FlowDeps, Outcome } from "./types.ts";

/**
 * `/duet schedule`, `/duet schedules`, `/duet unschedule`, once for every
 * front end. Scheduling and removing need what running commands needs (a
 * scheduled ask may run commands with nobody there); the list is anyone's.
 * A refusal or a bad `<when>` is told to the asker only.
 */

export async function schedule(deps: FlowDeps, surface: ChatSurface, asker: Asker, when: string, ask: string): Promise<Outcome> {
  return guarded(surface, asker, "run", async () => {
    const { reply, ok } = await attempt(deps, "schedule", asker.room, async () => {
      const req = { when, ask, userId: asker.user, ...(asker.scheduleTarget ? { target: asker.scheduleTarget } : {}) };
      const { schedule: view } = await deps.worker.schedule(asker.room, req);
      return { kind: "scheduled", schedule: view, user: asker.user };
    });
    return outcome(ok, ok ? await surface.post(reply) : await surface.postPrivate(reply));
  });
}

export async function schedules(deps: FlowDeps, surface: ChatSurface, asker: Asker): Promise<Outcome> {
  const { reply, ok } = await attempt(deps, "schedules", asker.room, async () => ({ kind: "schedules", schedules: (await deps.worker.schedules(asker.room)).schedules }));
  return outcome(ok, await surface.postPrivate(reply));
}

export async function unschedule(deps: FlowDeps, surface: ChatSurface, asker: Asker, id: string): Promise<Outcome> {
  return guarded(surface, asker, "run", async () => {
    const { reply, ok } = await attempt(deps, "unschedule", asker.room, async () => {
      const { schedule: view } = await deps.worker.unschedule(asker.room, id, { userId: asker.user });
      return { kind: "unscheduled", schedule: view, user: asker.user };
    });
    return outcome(ok, ok ? await surface.post(reply) : await surface.postPrivate(reply));
  });
}
