import { DuetError } from "../wire/errors.ts";
import { attempt, outcome } from "./attempt.ts";
import type { Reply } from "./reply.ts";
import { guarded } from "./control.ts";
import type { ChatSurface } from "./surface.ts";
import type { Asker, FlowDeps, Outcome } from "./types.ts";
import { redacting } from "./redacting.ts";
import { show } from "./audience.ts";

/**
 * `/duet schedule`, `/duet schedules`, `/duet unschedule`, once for every
 * front end. Scheduling and removing need what running commands needs (a
 * scheduled ask may run commands with nobody there); the list is anyone's.
 * A refusal or a bad `<when>` is told to the asker only.
 */

export async function schedule(deps: FlowDeps, surface: ChatSurface, asker: Asker, when: string, ask: string): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  return guarded(surface, asker, "run", async () => {
    const { reply, ok } = await attempt(deps, "schedule", asker.room, () => refusedAsIs(async () => {
      const req = { when, ask, userId: asker.user, ...(asker.scheduleTarget ? { target: asker.scheduleTarget } : {}) };
      const { schedule: view } = await deps.worker.schedule(asker.room, req);
      return { kind: "scheduled", schedule: view, user: asker.user };
    }));
    return outcome(ok && reply.kind !== "error", await show(surface, "schedule", ok && reply.kind !== "error", reply));
  });
}

export async function schedules(deps: FlowDeps, surface: ChatSurface, asker: Asker): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  const { reply, ok } = await attempt(deps, "schedules", asker.room, async () => ({ kind: "schedules", schedules: (await deps.worker.schedules(asker.room)).schedules }));
  return outcome(ok, await show(surface, "schedules", ok, reply));
}

/** The Worker's own sentence for what the person got wrong (a too frequent schedule, an unknown id): it says what to do, so no "try again". */
async function refusedAsIs(call: () => Promise<Reply>): Promise<Reply> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof DuetError && (err.code === "invalid_request" || err.code === "not_found")) return { kind: "error", text: err.message, code: err.code };
    throw err;
  }
}

export async function unschedule(deps: FlowDeps, surface: ChatSurface, asker: Asker, id: string): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  return guarded(surface, asker, "run", async () => {
    const { reply, ok } = await attempt(deps, "unschedule", asker.room, () => refusedAsIs(async () => {
      const { schedule: view } = await deps.worker.unschedule(asker.room, id, { userId: asker.user });
      return { kind: "unscheduled", schedule: view, user: asker.user };
    }));
    return outcome(ok && reply.kind !== "error", await show(surface, "unschedule", ok && reply.kind !== "error", reply));
  });
}
