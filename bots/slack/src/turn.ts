import { describeForUser, type RecentIds, sanitizeChatText, type WorkerClient } from "@duet/shared";
import type { Logger } from "@slack/bolt";
import { z } from "zod";
import { claimAndShowWorking, showDone, type ThreadStatus } from "./feedback.ts";
import { slackToPlain, stripBotMention } from "./mrkdwn.ts";
import { renderAnswer, renderNotice, type Rendered } from "./render.ts";
import type { MentionPlace, RoomScope } from "./rooms.ts";
import type { SlackOut } from "./slack-api.ts";

/**
 * A Slack message Duet answers, however it arrived (a mention, a direct message):
 * the event's shape, and the one path from claim to answer. Bolt has acked the
 * event before this runs, so the Worker's time never delays the ack.
 */

export interface TurnDeps {
  worker: WorkerClient;
  out: SlackOut;
  recent: RecentIds;
  scope: RoomScope;
  botUserId: string;
  logger: Logger;
  /** The bot's own tokens, redacted from anything it posts. */
  secrets: readonly string[];
  status: ThreadStatus;
}

/** The fields every message-like event carries (app_mention, message). */
export const messageEventFields = {
  channel: z.string().min(1),
  ts: z.string().min(1),
  text: z.string().default(""),
  user: z.string().optional(),
  thread_ts: z.string().optional(),
  bot_id: z.string().optional(),
  subtype: z.string().optional(),
  team: z.string().optional(),
};

/** The shape every message-like event shares (app_mention, message). */
type MessageEvent = { channel: string; ts: string; thread_ts?: string; team?: string };

export const envelopeSchema = z.object({ event_id: z.string().min(1), team_id: z.string().min(1).optional() });

/** Other bots (and Duet itself) never start a turn: two bots could answer each other forever. */
export function isFromBot(e: { bot_id?: string; subtype?: string; user?: string }, botUserId: string): boolean {
  return Boolean(e.bot_id) || e.subtype === "bot_message" || e.user === botUserId;
}

/** The event and its envelope, or null (logged) when Slack sent something this code cannot read. */
export function parseEvent<S extends z.ZodType<MessageEvent>>(
  schema: S,
  rawEvent: unknown,
  rawBody: unknown,
  label: string,
  logger: Logger,
): { event: z.infer<S>; eventId: string; place: MentionPlace | null } | null {
  const event = schema.safeParse(rawEvent);
  const envelope = envelopeSchema.safeParse(rawBody);
  if (!event.success || !envelope.success) {
    logger.warn(`Ignored a malformed ${label}: ${(event.error ?? envelope.error)?.issues[0]?.message ?? "unknown"}`);
    return null;
  }
  const e: MessageEvent = event.data;
  const teamId = envelope.data.team_id ?? e.team;
  // Without a team id there is no room to answer in; answerTurn logs and drops it.
  const place = teamId ? { teamId, channel: e.channel, ts: e.ts, threadTs: e.thread_ts } : null;
  return { event: event.data, eventId: envelope.data.event_id, place };
}

/** A message Duet should answer, however it arrived (a mention, a direct message). */
export interface TurnRequest {
  eventId: string;
  /** The event type, for logs. */
  kind: string;
  /** Null when the event carried no team id: nothing can be answered. */
  place: MentionPlace | null;
  user: string;
  /** As Slack sent it (mrkdwn, escapes, mentions). */
  text: string;
  roomFor(place: MentionPlace): string;
  /** The thread to answer in; undefined answers in the conversation itself. */
  replyIn(place: MentionPlace): string | undefined;
  emptyHint: string;
}

/** Claim, show that Duet works, ask the Worker, answer, mark the end. */
export async function answerTurn(deps: TurnDeps, req: TurnRequest): Promise<void> {
  const { logger, out } = deps;
  if (!deps.recent.first(req.eventId)) {
    logger.debug(`Skipped a repeated delivery of ${req.eventId}`);
    return;
  }
  if (!req.place) {
    logger.warn(`Ignored ${req.kind} ${req.eventId} without a team id`);
    return;
  }
  const msg = { channel: req.place.channel, ts: req.place.ts };
  const threadTs = req.replyIn(req.place);
  const room = req.roomFor(req.place);

  const claim = await claimAndShowWorking(out, msg);
  if (claim === "taken") {
    logger.info(`Event ${req.eventId}: the message already carries Duet's claim; another delivery answers it`);
    return;
  }

  const text = sanitizeChatText(slackToPlain(stripBotMention(req.text, deps.botUserId)));
  if (!text) {
    const posted = await postRendered(out, msg.channel, threadTs, renderNotice(req.emptyHint));
    await showDone(out, msg, posted);
    return;
  }

  const stopStatus = deps.status.show(msg.channel, threadTs);
  let rendered: Rendered;
  let ok = true;
  try {
    const res = await deps.worker.message(room, { text, userId: req.user, idempotencyKey: req.eventId });
    rendered = renderAnswer(res, { secrets: deps.secrets });
  } catch (err) {
    logger.warn(`Worker call for ${room} failed: ${(err as Error)?.message ?? err}`);
    rendered = renderNotice(`:warning: ${describeForUser(err)}`);
    ok = false;
  }
  await stopStatus();
  const posted = await postRendered(out, msg.channel, threadTs, rendered);
  if (!posted) await deps.status.clear(msg.channel, threadTs);
  await showDone(out, msg, ok && posted);
}

/** Posts the message, then its files, in the thread. False when the message itself failed. */
async function postRendered(out: SlackOut, channel: string, threadTs: string | undefined, r: Rendered): Promise<boolean> {
  const ts = await out.post(channel, r.text, r.blocks, threadTs);
  if (!ts) return false;
  for (const upload of r.uploads) await out.upload(channel, upload, threadTs);
  return true;
}
