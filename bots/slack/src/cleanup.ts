import type { WorkerClient } from "@duet/shared";
import type { App, Logger } from "@slack/bolt";
import { z } from "zod";
import { channelRoom } from "./rooms.ts";

/**
 * Archiving or deleting a channel tears its room down: the Worker wipes the
 * history and destroys the sandbox, for the channel room and every thread room
 * recorded under it. `group_*` are the same events for private channels.
 * Deleting twice is harmless, so retried deliveries need no dedupe here.
 */

export const CLEANUP_EVENTS = ["channel_archive", "channel_deleted", "group_archive", "group_deleted"] as const;

const eventSchema = z.object({ channel: z.string().min(1) });
const bodySchema = z.object({ team_id: z.string().min(1) });

export interface CleanupDeps {
  worker: WorkerClient;
  logger: Logger;
}

export function registerCleanup(app: App, deps: CleanupDeps, track: (p: Promise<void>) => Promise<void>): void {
  for (const type of CLEANUP_EVENTS) {
    app.event(type, async ({ event, body }) => {
      await track(cleanUp(type, event, body, deps));
    });
  }
}

async function cleanUp(type: string, rawEvent: unknown, rawBody: unknown, deps: CleanupDeps): Promise<void> {
  const event = eventSchema.safeParse(rawEvent);
  const body = bodySchema.safeParse(rawBody);
  if (!event.success || !body.success) {
    deps.logger.warn(`Ignored a malformed ${type} event`);
    return;
  }
  const room = channelRoom(body.data.team_id, event.data.channel);
  try {
    const res = await deps.worker.cleanup(room);
    if (res.errors?.length) deps.logger.warn(`Cleaned ${room} after ${type}, with errors: ${res.errors.join("; ")}`);
    else deps.logger.info(`Cleaned ${room} after ${type}`);
  } catch (err) {
    // Nobody in an archived channel can read a message, so the log is the only place to say it.
    deps.logger.error(`Could not clean ${room} after ${type}: ${(err as Error)?.message ?? err}`);
  }
}
