import { ask, type DeliveryClaims, type FlowDeps, mentionedFact, newClaimant, runCommand, sanitizeChatText, shareFiles, type Span, underEventSpan } from "@duet/shared";
import type { Logger } from "@slack/bolt";
import { z } from "zod";
import { claimAndShowWorking, showDone, type ThreadStatus } from "./feedback.ts";
import { slackToPlain, stripBotMention } from "./mrkdwn.ts";
import type { MessagePlace, RoomScope } from "./rooms.ts";
import type { PeopleNames } from "./people.ts";
import type { SlackOut } from "./slack-api.ts";
import type { LiveMessages } from "./live/live-message.ts";
import { conversationSurface, type TurnStatus } from "./surfaces.ts";
import { slackTarget } from "./outbox-delivery.ts";
import { slackFileSchema } from "./files/incoming.ts";
import type { SlackFiles } from "./files/slack-files.ts";

/**
 * A Slack message Duet answers, however it arrived (a mention, a direct message):
 * the event's shape, who may start a turn, and the way from claim to the shared
 * ask flow. Bolt has acked the event before this runs, so the Worker's time
 * never delays the ack.
 */

export interface MessageDeps {
  flow: FlowDeps;
  out: SlackOut;
  /** Which replica answers a delivery Slack sent more than once (a retry may reach any replica). */
  claims: DeliveryClaims;
  scope: RoomScope;
  botUserId: string;
  logger: Logger;
  status: ThreadStatus;
  /** Live answers (chat streaming, or updates where a workspace has none). */
  live: LiveMessages;
  /** Shared files in, workspace files out. */
  files: SlackFiles;
  /** People's display names, for the model to tell them apart. */
  people: PeopleNames;
}

/** The fields every message-like event carries (app_mention, message). */
export const messageEventFields = {
  channel: z.string().min(1),
  ts: z.string().min(1),
  text: z.string().default(""),
  user: z.string().optional(),
  thread_ts: z.string().optional(),
  bot_id: z.string().optional(),
  app_id: z.string().optional(),
  subtype: z.string().optional(),
  team: z.string().optional(),
  /** Files shared with the message; they go to the room's uploads/ before the turn starts. */
  files: z.array(slackFileSchema).optional(),
};

/** The shape every message-like event shares (app_mention, message). */
type MessageEvent = z.infer<z.ZodObject<typeof messageEventFields>>;

export const envelopeSchema = z.object({ event_id: z.string().min(1), team_id: z.string().min(1).optional() });

/** Subtypes of messages a person wrote: a file attached, or a thread reply also sent to the channel. */
const PERSON_SUBTYPES = new Set(["file_share", "thread_broadcast"]);
/**
 * Slack's reserved senders: Slackbot (reminders, "you were removed from…") and
 * Slack itself (system notices such as "<@U…> archived the channel <#C…>").
 * Their messages are nobody's question.
 */
const SLACK_SENDERS = new Set(["USLACKBOT", "USLACK"]);

/**
 * Only a person's own new message starts a turn. Apps and bots (Duet itself
 * included: two bots could answer each other forever) carry `bot_id` or
 * `app_id`; edits, deletions, joins and the other subtypes are notices about
 * messages, not messages.
 */
export function isFromPerson(e: { bot_id?: string; app_id?: string; subtype?: string; user?: string }, botUserId: string): e is { user: string } {
  if (e.bot_id || e.app_id || !e.user || SLACK_SENDERS.has(e.user) || e.user === botUserId) return false;
  return !e.subtype || PERSON_SUBTYPES.has(e.subtype);
}

/** The event and its envelope, or null (logged) when Slack sent something this code cannot read. */
export function parseEvent<S extends z.ZodType<MessageEvent>>(
  schema: S,
  rawEvent: unknown,
  rawBody: unknown,
  label: string,
  logger: Logger,
): { event: z.infer<S>; eventId: string; place: MessagePlace | null } | null {
  const event = schema.safeParse(rawEvent);
  const envelope = envelopeSchema.safeParse(rawBody);
  if (!event.success || !envelope.success) {
    logger.warn(`Ignored a malformed ${label}: ${(event.error ?? envelope.error)?.issues[0]?.message ?? "unknown"}`);
    return null;
  }
  const e: MessageEvent = event.data;
  const teamId = envelope.data.team_id ?? e.team;
  // Without a team id there is no room to answer in; answerMessage logs and drops it.
  const place = teamId ? { teamId, channel: e.channel, ts: e.ts, threadTs: e.thread_ts } : null;
  return { event: event.data, eventId: envelope.data.event_id, place };
}

/** A kind of message event Duet answers (a mention, a direct message): how to read it and where to answer. */
export interface MessageKind {
  schema: z.ZodType<MessageEvent>;
  /** The event type, for logs. */
  label: string;
  roomFor(place: MessagePlace, scope: RoomScope): string;
  /** The thread to answer in; undefined answers in the conversation itself. */
  replyIn(place: MessagePlace): string | undefined;
  emptyHint: string;
  /** A turn here that differs from a thread's (the agent pane): its own status, and what follows its ask. */
  turn?(place: MessagePlace, threadTs: string | undefined): KindTurn;
  /** An agent-pane conversation: its answer, when the room's outbox delivers it, titles the conversation too. */
  pane?: boolean;
}

export interface KindTurn {
  status: TurnStatus;
  /** This delivery's ask was answered here, not by another delivery of it. */
  answered(): Promise<void>;
}

/** The scope a workspace's deliveries are claimed in (its event ids are unique within it). */
export const slackScope = (teamId: string): string => `slack-${teamId}`;

/**
 * Read the event, keep it only if a person wrote it, drop repeats, claim it
 * with 👀 beside it, ask, mark the end (✅ or ⚠️).
 *
 * A question is claimed by its ask: the room (every delivery of the event
 * comes to the same one) refuses a second delivery's claim, so the 👀 goes out
 * beside the ask instead of after a claim's own round trip to the Worker
 * (that round trip would be most of the time to the 👀, and about a quarter
 * of the time to the answer). The 👀 is then only feedback: a repeat
 * adds it again (`already_reacted`, harmless) and the room's answer decides.
 * Files and an empty mention act before or without a turn (an upload, a
 * hint), so they take the Worker's separate claim first: with no turn to
 * carry the key, only that claim keeps a second delivery from acting twice.
 */
export async function answerMessage(deps: MessageDeps, kind: MessageKind, rawEvent: unknown, rawBody: unknown): Promise<void> {
  const { logger, out } = deps;
  const parsed = parseEvent(kind.schema, rawEvent, rawBody, kind.label, logger);
  if (!parsed) return;
  const e = parsed.event;
  if (!isFromPerson(e, deps.botUserId)) return;
  if (!parsed.place) {
    logger.warn(`Ignored ${kind.label} ${parsed.eventId} without a team id`);
    return;
  }
  // The event's span is the root of the turn's trace: its claim, look-ups and reactions, then the ask under it.
  const place = parsed.place;
  await underEventSpan(deps.flow.tracing, `slack.${kind.label.replace(/\s+/g, "_")}`, { "duet.event.id": parsed.eventId }, (span) =>
    answerTraced(deps, kind, { event: e, eventId: parsed.eventId, place }, span),
  );
}

async function answerTraced(deps: MessageDeps, kind: MessageKind, parsed: { event: MessageEvent & { user: string }; eventId: string; place: MessagePlace }, span: Span): Promise<void> {
  const { logger, out } = deps;
  const e = parsed.event;
  const scope = slackScope(parsed.place.teamId);
  const msg = { channel: parsed.place.channel, ts: parsed.place.ts };
  const typed = sanitizeChatText(slackToPlain(stripBotMention(e.text, deps.botUserId)));
  // `@Duet remember <fact>` pins it: no turn, so it takes the Worker's separate claim, as files do.
  const pins = !e.files?.length && mentionedFact(typed) !== null;
  const askClaims = !e.files?.length && typed !== "" && !pins;
  const claimed = askClaims ? deps.claims.firstHere(scope, parsed.eventId) : await span.within("duet.claim", () => deps.claims.first(scope, parsed.eventId), { kind: "client" });
  if (!claimed) {
    logger.debug(`Skipped a repeated delivery of ${parsed.eventId}`);
    return;
  }
  // The question's place among this channel's questions is taken as it arrives, before the look-ups below.
  const inLine = askClaims ? deps.flow.order?.take(kind.roomFor(parsed.place, deps.scope)) : undefined;
  // A question that fails before it is asked still lets the next one in its channel go.
  const asked = await (async () => {
    const working = span.within("chat.react", () => claimAndShowWorking(out, msg), { kind: "client" });
    if (!askClaims && (await working) === "taken") {
      logger.info(`Event ${parsed.eventId}: the message already carries Duet's claim; another delivery answers it`);
      return null;
    }
    const room = kind.roomFor(parsed.place, deps.scope);
    const threadTs = kind.replyIn(parsed.place);
    const teamId = parsed.place.teamId;
    const own = kind.turn?.(parsed.place, threadTs);
    const status = own?.status ?? deps.status.at(msg.channel, threadTs);
    const live = (onPosted?: (ts: string) => void) => deps.live({ channel: msg.channel, threadTs, recipientUserId: e.user, recipientTeamId: teamId, room, onPosted, onPosting: () => status.posting?.() });
    const files = deps.files.surface({ channel: msg.channel, threadTs });
    const surface = conversationSurface(out, status, { channel: msg.channel, threadTs, user: e.user, room, live, files });
    span.set({ "gen_ai.conversation.id": room });
    const name = await span.within("slack.user_lookup", () => deps.people.name(teamId, e.user), { kind: "client" });
    const asker = { room, user: e.user, key: parsed.eventId, ...(askClaims ? { claim: newClaimant() } : {}), deliver: slackTarget({ channel: msg.channel, threadTs, ts: msg.ts, ...(kind.pane ? { pane: true } : {}) }), ...(name ? { name } : {}), ...(inLine ? { inLine } : {}), span };
    if (e.files?.length) await shareFiles(deps.flow, (r) => surface.post(r), asker, deps.files.incoming(e.files), "Slack");
    const text = await deps.people.withNames(teamId, stripBotMention(e.text, deps.botUserId));
    const fact = pins ? mentionedFact(slackToPlain(text)) : null;
    if (fact !== null) return { outcome: await runCommand(deps.flow, surface, asker, { kind: "remember", fact }), working, own };
    return { outcome: await ask(deps.flow, surface, asker, slackToPlain(text), kind.emptyHint), working, own };
  })().finally(() => inLine?.ended());
  if (!asked) return;
  const { outcome, working, own } = asked;
  await working;
  if (outcome === "elsewhere") {
    logger.debug(`Skipped a repeated delivery of ${parsed.eventId} (another delivery of it asked the room first)`);
    return;
  }
  await own?.answered();
  // The room's delivery posts the answer and puts the ✅ on the question then.
  if (outcome === "coming") return;
  await showDone(out, msg, outcome === "answered");
}
