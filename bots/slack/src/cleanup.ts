import { WORKSPACE_CLEANUP_TIMEOUT_MS, workspaceRoomId, type WorkerClient } from "@duet/shared";
import type { App, Logger } from "@slack/bolt";
import { z } from "zod";
import { channelRoom } from "./rooms.ts";

/**
 * Archiving or deleting a channel tears its room down: the Worker wipes the
 * history and destroys the sandbox, for the channel room and every thread room
 * recorded under it. `group_*` are the same events for private channels.
 * Uninstalling Duet (or revoking its bot token) tears down every room of the
 * workspace the same way, through the workspace room. Deleting twice is
 * harmless, so retried deliveries need no dedupe here.
 */

export const CHANNEL_CLEANUP_EVENTS = ["channel_archive", "channel_deleted", "group_archive", "group_deleted"] as const;
export const WORKSPACE_CLEANUP_EVENTS = ["app_uninstalled", "tokens_revoked"] as const;
export const CLEANUP_EVENTS = [...CHANNEL_CLEANUP_EVENTS, ...WORKSPACE_CLEANUP_EVENTS] as const;

const channelEventSchema = z.object({ channel: z.string().min(1) });
/** Only the bot's own tokens matter: revoking a user's token leaves Duet installed. */
const revokedSchema = z.object({ tokens: z.object({ bot: z.array(z.string()).optional() }).optional() });
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

/** The room the event removes, or null (logged) when there is nothing to remove. */
function roomOf(type: string, rawEvent: unknown, teamId: string, logger: Logger): string | null {
  if (type === "app_uninstalled") return workspaceRoomId("slack", teamId);
  if (type === "tokens_revoked") {
    const revoked = revokedSchema.safeParse(rawEvent);
    if (revoked.success && revoked.data.tokens?.bot?.length) return workspaceRoomId("slack", teamId);
    logger.debug("tokens_revoked without a bot token: Duet stays, and so do its rooms");
    return null;
  }
  const event = channelEventSchema.safeParse(rawEvent);
  if (event.success) return channelRoom(teamId, event.data.channel);
  logger.warn(`Ignored a malformed ${type} event`);
  return null;
}

async function cleanUp(type: string, rawEvent: unknown, rawBody: unknown, deps: CleanupDeps): Promise<void> {
  const body = bodySchema.safeParse(rawBody);
  if (!body.success) {
    deps.logger.warn(`Ignored a malformed ${type} event`);
    return;
  }
  const room = roomOf(type, rawEvent, body.data.team_id, deps.logger);
  if (room) await removeRoom(room, type, deps);
}

/** Asks the Worker to tear `room` down (a workspace room: every room in it); the outcome goes to the log. */
export async function removeRoom(room: string, type: string, deps: CleanupDeps): Promise<void> {
  try {
    const workspace = (WORKSPACE_CLEANUP_EVENTS as readonly string[]).includes(type);
    const res = await deps.worker.cleanup(room, workspace ? { timeoutMs: WORKSPACE_CLEANUP_TIMEOUT_MS } : {});
    if (res.errors?.length) deps.logger.warn(`Cleaned ${room} after ${type}, with errors: ${res.errors.join("; ")}`);
    else deps.logger.info(`Cleaned ${room} after ${type}`);
  } catch (err) {
    // Nobody in an archived channel (or a workspace that removed Duet) can read a message, so the log is the only place to say it.
    deps.logger.error(`Could not clean ${room} after ${type}: ${(err as Error)?.message ?? err}`);
  }
}
