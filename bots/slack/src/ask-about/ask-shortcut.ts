import { askAbout, askAboutProblem, ASK_ABOUT_WORDS, sanitizeChatText, shareFiles } from "@duet/shared";
import type { App, webApi } from "@slack/bolt";
import { z } from "zod";
import { slackFileSchema, type SlackFile } from "../files/incoming.ts";
import { slackToPlain } from "../mrkdwn.ts";
import { slackTarget } from "../outbox-delivery.ts";
import { mentionRoom } from "../rooms.ts";
import { slackErrorCode } from "../slack-api.ts";
import { conversationSurface } from "../surfaces.ts";
import type { MessageDeps } from "../turn.ts";
import { ASK_MODAL_ID, ASK_SHORTCUT_ID, askPlaceSchema, type AskPlace, noticeModal, QUESTION_ACTION, QUESTION_BLOCK, questionModal } from "./ask-modal.ts";

/**
 * "Ask Duet" from a message's menu (a message shortcut): Duet checks it can
 * read the message, opens a modal for the question, and on submit answers in
 * that message's thread, in that channel's room, with the message quoted as
 * data with its author, its files put in the room's uploads/ first. The message is read again at submit (not carried in
 * the modal), so a deleted message is noticed and a long one is not cut to
 * the modal's metadata.
 */

const shortcutSchema = z.object({
  trigger_id: z.string().min(1),
  user: z.object({ id: z.string().min(1) }),
  team: z.object({ id: z.string().min(1) }).nullable().optional(),
  channel: z.object({ id: z.string().min(1) }),
  message: z.object({ ts: z.string(), thread_ts: z.string().optional() }),
});

const submissionSchema = z.object({
  user: z.object({ id: z.string().min(1), team_id: z.string().optional() }),
  team: z.object({ id: z.string().min(1) }).nullable().optional(),
  view: z.object({
    id: z.string().min(1),
    private_metadata: z.string(),
    state: z.object({ values: z.record(z.string(), z.record(z.string(), z.object({ value: z.string().nullable().optional() }))) }),
  }),
});

interface ReadMessage {
  text: string;
  user?: string;
  /** The app's name, for a message another app posted. */
  app?: string;
  /** The files shared with it, as a mention's are read. */
  files: SlackFile[];
}

/** The message as Duet can read it now, or null (deleted, or somewhere Duet is not). */
async function readMessage(client: webApi.WebClient, place: AskPlace): Promise<ReadMessage | null> {
  try {
    const res = await client.conversations.replies({ channel: place.c, ts: place.ts, limit: 1, inclusive: true });
    const msg = res.messages?.find((m) => m.ts === place.ts);
    if (!msg) return null;
    const app = msg.bot_profile?.name;
    return { text: msg.text ?? "", user: msg.user, ...(app ? { app } : {}), files: (msg.files ?? []).flatMap((f) => slackFileSchema.safeParse(f).data ?? []) };
  } catch {
    return null;
  }
}

export function registerAskDuet(app: App, deps: MessageDeps, track: (p: Promise<void>) => Promise<void>): void {
  app.shortcut(ASK_SHORTCUT_ID, async ({ shortcut, ack, client }) => {
    await ack();
    const s = shortcutSchema.safeParse(shortcut);
    if (!s.success) return deps.logger.warn("Ignored a malformed Ask Duet shortcut");
    const place: AskPlace = { c: s.data.channel.id, ts: s.data.message.ts, ...(s.data.message.thread_ts ? { th: s.data.message.thread_ts } : {}) };
    const ok = askPlaceSchema.safeParse(place).success;
    const msg = ok ? await readMessage(client, place) : null;
    const view = !ok ? noticeModal(ASK_ABOUT_WORDS.notHere) : !msg ? noticeModal(ASK_ABOUT_WORDS.unreadable) : !msg.text.trim() ? noticeModal(ASK_ABOUT_WORDS.noText) : questionModal(place);
    try {
      // The trigger lives 3 seconds: the modal opens before anything else is asked.
      await client.views.open({ trigger_id: s.data.trigger_id, view });
    } catch (err) {
      deps.logger.warn(`views.open for Ask Duet failed: ${slackErrorCode(err)}`);
    }
  });

  app.view(ASK_MODAL_ID, async ({ ack, body, client }) => {
    const sub = submissionSchema.safeParse(body);
    const place = sub.success ? askPlaceSchema.safeParse(safeJson(sub.data.view.private_metadata)) : null;
    if (!sub.success || !place?.success) {
      await ack();
      return deps.logger.warn("Ignored a malformed Ask Duet submission");
    }
    const question = sub.data.view.state.values[QUESTION_BLOCK]?.[QUESTION_ACTION]?.value ?? "";
    const problem = askAboutProblem(question);
    // Slack shows the line under the field and keeps the modal open.
    if (problem) return void (await ack({ response_action: "errors", errors: { [QUESTION_BLOCK]: problem } }));
    await ack();
    const teamId = sub.data.team?.id ?? sub.data.user.team_id ?? "";
    await track(answer(deps, client, { teamId, user: sub.data.user.id, viewId: sub.data.view.id, place: place.data, question }));
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function answer(deps: MessageDeps, client: webApi.WebClient, a: { teamId: string; user: string; viewId: string; place: AskPlace; question: string }): Promise<void> {
  const { c: channel, ts } = a.place;
  const threadTs = a.place.th ?? ts;
  const msg = await readMessage(client, a.place);
  if (!msg) {
    if (!(await deps.out.postEphemeral(channel, a.user, ASK_ABOUT_WORDS.unreadable))) deps.logger.warn(`Ask Duet in ${a.teamId}/${channel}: the message could not be read and the asker could not be told`);
    return;
  }
  const room = mentionRoom({ teamId: a.teamId, channel, ts, threadTs: a.place.th }, deps.scope);
  const key = `ask-duet-${a.viewId}`;
  const status = deps.status.at(channel, threadTs);
  const live = (onPosted?: (ts: string) => void) => deps.live({ channel, threadTs, recipientUserId: a.user, recipientTeamId: a.teamId, room, onPosted, onPosting: () => status.posting?.() });
  const surface = conversationSurface(deps.out, status, { channel, threadTs, user: a.user, room, live, files: deps.files.surface({ channel, threadTs }) });
  // An app's message is named by the app (its `user`, where Slack gives one, is the app's bot user).
  const [name, author] = await Promise.all([deps.people.name(a.teamId, a.user), msg.app ? Promise.resolve(msg.app) : msg.user ? deps.people.name(a.teamId, msg.user) : Promise.resolve(null)]);
  const text = slackToPlain(await deps.people.withNames(a.teamId, msg.text));
  const asker = { room, user: a.user, key, deliver: slackTarget({ channel, threadTs, ts }), ...(name ? { name } : {}) };
  // The message's files go to the room's uploads/ first, as a mention's do; the model is told their names.
  // A message with no text is refused by the ask, so its files are not taken either.
  if (msg.files.length && sanitizeChatText(text)) await shareFiles(deps.flow, (r) => surface.post(r), asker, deps.files.incoming(msg.files), "Slack");
  await askAbout(deps.flow, surface, asker, a.question, { author: author ?? msg.user ?? "an app", text, files: msg.files.map((f) => f.name ?? f.title ?? f.id) });
}
