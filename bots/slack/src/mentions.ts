import { describeForUser, sanitizeChatText, type WorkerClient } from "@duet/shared";
import type { App, Logger } from "@slack/bolt";
import { z } from "zod";
import type { RecentIds } from "./dedupe.ts";
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

  // 👀 goes out first (it is what the person sees), but the Worker call does not wait for
  // Slack's answer to it: that would add a Slack round trip to every turn. The claim only
  // decides whether this delivery posts; a delivery that finds it taken has asked the Worker
  // with the same idempotency key (the event id), which shares or replays the one turn.
  const claiming = claimAndShowWorking(out, msg);
  const text = sanitizeChatText(slackToPlain(stripBotMention(e.text, deps.botUserId)));
  const room = mentionRoom(place, deps.scope);
  const answering = text ? ask(deps, room, text, e.user, eventId) : Promise.resolve({ rendered: renderNotice(EMPTY_MENTION_HINT), ok: true });
  if ((await claiming) === "taken") {
    logger.info(`Event ${eventId}: the message already carries Duet's claim; another delivery answers it`);
    return;
  }
  const { rendered, ok } = await answering;
  const posted = await postRendered(out, e.channel, threadTs, rendered);
  await showDone(out, msg, ok && posted);
}

/** The Worker's answer rendered for Slack, or the failure as a notice; never rejects. */
async function ask(deps: MentionDeps, room: string, text: string, userId: string, eventId: string): Promise<{ rendered: Rendered; ok: boolean }> {
  try {
    const res = await deps.worker.message(room, { text, userId, idempotencyKey: eventId });
    return { rendered: renderAnswer(res, { secrets: deps.secrets }), ok: true };
  } catch (err) {
    deps.logger.warn(`Worker call for ${room} failed: ${(err as Error)?.message ?? err}`);
    return { rendered: renderNotice(`:warning: ${describeForUser(err)}`), ok: false };
  }
}

/** Posts the message, then its files, in the thread. False when the message itself failed. */
export async function postRendered(out: SlackOut, channel: string, threadTs: string | undefined, r: Rendered): Promise<boolean> {
  const ts = await out.post(channel, r.text, r.blocks, threadTs);
  if (!ts) return false;
  for (const upload of r.uploads) await out.upload(channel, upload, threadTs);
  return true;
}
