import { describeForUser, type RecentIds, sanitizeChatText, type WorkerClient } from "@duet/shared";
import type { App, Logger } from "@slack/bolt";
import { z } from "zod";
import { claimAndShowWorking, showDone } from "./feedback.ts";
import { slackToPlain, stripBotMention } from "./mrkdwn.ts";
import { renderAnswer, renderNotice, type Rendered } from "./render.ts";
import { mentionRoom, replyThread, type RoomScope } from "./rooms.ts";
import type { SlackOut } from "./slack-api.ts";

/**
 * `@Duet …` in a channel or thread: the mention becomes a turn in the room, and
 * the answer goes in the thread of the mention. Bolt has acked the event before
 * this runs, so the Worker's time never delays the ack.
 */

export interface MentionDeps {
  worker: WorkerClient;
  out: SlackOut;
  recent: RecentIds;
  scope: RoomScope;
  botUserId: string;
  logger: Logger;
  /** The bot's own tokens, redacted from anything it posts. */
  secrets: readonly string[];
}

const mentionSchema = z.object({
  type: z.literal("app_mention"),
  channel: z.string().min(1),
  ts: z.string().min(1),
  text: z.string().default(""),
  user: z.string().optional(),
  thread_ts: z.string().optional(),
  bot_id: z.string().optional(),
  subtype: z.string().optional(),
  team: z.string().optional(),
});

const envelopeSchema = z.object({ event_id: z.string().min(1), team_id: z.string().min(1).optional() });

const EMPTY_MENTION_HINT =
  "Hi! Ask me something after the mention, e.g. `@Duet what's in this repo?`, or use `/duet help` for the commands.";

/** `track` lets stop() wait for turns in flight and logs what they throw. */
export function registerMentions(app: App, deps: MentionDeps, track: (p: Promise<void>) => Promise<void>): void {
  app.event("app_mention", async ({ event, body }) => {
    await track(handleMention(event, body, deps));
  });
}

export async function handleMention(rawEvent: unknown, rawBody: unknown, deps: MentionDeps): Promise<void> {
  const { logger, out } = deps;
  const event = mentionSchema.safeParse(rawEvent);
  const envelope = envelopeSchema.safeParse(rawBody);
  if (!event.success || !envelope.success) {
    logger.warn(`Ignored a malformed app_mention: ${(event.error ?? envelope.error)?.issues[0]?.message ?? "unknown"}`);
    return;
  }
  const e = event.data;
  // Other bots (and Duet itself) never start a turn: two bots could answer each other forever.
  if (e.bot_id || e.subtype === "bot_message" || e.user === deps.botUserId || !e.user) return;
  const eventId = envelope.data.event_id;
  if (!deps.recent.first(eventId)) {
    logger.debug(`Skipped a repeated delivery of ${eventId}`);
    return;
  }
  const teamId = envelope.data.team_id ?? e.team;
  if (!teamId) {
    logger.warn(`Ignored app_mention ${eventId} without a team id`);
    return;
  }
  const place = { teamId, channel: e.channel, ts: e.ts, threadTs: e.thread_ts };
  const threadTs = replyThread(place);
  const msg = { channel: e.channel, ts: e.ts };

  const claim = await claimAndShowWorking(out, msg);
  if (claim === "taken") {
    logger.info(`Event ${eventId}: the message already carries Duet's claim; another delivery answers it`);
    return;
  }

  const text = sanitizeChatText(slackToPlain(stripBotMention(e.text, deps.botUserId)));
  if (!text) {
    const posted = await postRendered(out, e.channel, threadTs, renderNotice(EMPTY_MENTION_HINT));
    await showDone(out, msg, posted);
    return;
  }

  const room = mentionRoom(place, deps.scope);
  let rendered: Rendered;
  let ok = true;
  try {
    const res = await deps.worker.message(room, { text, userId: e.user, idempotencyKey: eventId });
    rendered = renderAnswer(res, { secrets: deps.secrets });
  } catch (err) {
    logger.warn(`Worker call for ${room} failed: ${(err as Error)?.message ?? err}`);
    rendered = renderNotice(`:warning: ${describeForUser(err)}`);
    ok = false;
  }
  const posted = await postRendered(out, e.channel, threadTs, rendered);
  await showDone(out, msg, ok && posted);
}

/** Posts the message, then its files, in the thread. False when the message itself failed. */
export async function postRendered(out: SlackOut, channel: string, threadTs: string | undefined, r: Rendered): Promise<boolean> {
  const ts = await out.post(channel, r.text, r.blocks, threadTs);
  if (!ts) return false;
  for (const upload of r.uploads) await out.upload(channel, upload, threadTs);
  return true;
}
