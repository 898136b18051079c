import { DiscordAPIError, MessageFlags, type ChatInputCommandInteraction, type InteractionReplyOptions, type Message, type ModalSubmitInteraction, type ThreadChannel } from "discord.js";
import { ANSWER_NOTES, keepRenewing, type Span, type ChannelPace, type ChatSurface, type LiveView, type PostedRef, type Reply } from "@duet/shared";
import type { Logger } from "./deps.ts";
import { DiscordLiveMessage } from "./live/live-message.ts";
import { deliveryNonce } from "./outbox-delivery.ts";
import { interactionTarget, messageTarget, type LiveTarget } from "./live/targets.ts";
import { afterNote, noteInDeferredReply, reactWhileQueued } from "./queued.ts";
import { messageBody, renderReply, type Outgoing } from "./render.ts";
import { renderStyled } from "./render-v2.ts";
import type { ComponentsStyle } from "./config.ts";
import { liveLayout } from "./live/live-v2.ts";
import { discordFileSurface, DISCORD_FILE_MAX_BYTES, type FilesMessage } from "./files/outgoing.ts";

/**
 * Where Discord shows the chat flow's replies: as replies to a person's
 * message (a mention), or through an interaction's deferred reply. Mentions in
 * what Duet posts never ping anyone. Each new message everyone in the channel
 * sees waits the channel's turn in the bot's pace; edits (the deferred reply
 * included) and private follow-ups do not.
 */

/** The interaction token expired (15 min) or its webhook vanished: fall back to a channel message. */
const TOKEN_GONE = new Set([50027 /* invalid webhook token */, 10015 /* unknown webhook */]);

export interface SurfaceDeps {
  log: Logger;
  /** How often the typing indicator is renewed while Duet works. */
  typingRenewMs: number;
  /** The largest file posted (DUET_FILE_MAX_BYTES; Discord's own limit applies below it). */
  fileMaxBytes: number;
  /** The process's one pace for new messages, by channel id. */
  pace: ChannelPace;
  /** Least time between two edits of a live answer (default LIVE_INTERVAL_MS). */
  liveIntervalMs?: number;
  /** How answers are laid out (DISCORD_COMPONENTS). */
  components: ComponentsStyle;
}

/**
 * A mention: the first part replies to the message, the rest follow in the same
 * channel, with typing shown while Duet works. A reply to a message cannot be
 * private, so private replies are posted like the others. A live answer's
 * Stop button names `room`; without a room (a DM) answers are posted whole.
 * `span`: the message's span, under which the first typing (Duet's
 * acknowledgement of the message) is recorded.
 */
export function messageSurface(message: Message, room: string | null, deps: SurfaceDeps, span?: Span): ChatSurface {
  // An answer posted whole carries the nonce its delivery would: a bot that dies before confirming it is not
  // answered twice. Nothing else may carry it (a failure, a live answer's first words): Discord would hand that
  // message to the delivery as if it were the answer.
  const nonce = room ? deliveryNonce(room, message.id, 0) : undefined;
  const paced = <R>(create: () => Promise<R>) => deps.pace.run(message.channelId, create);
  const post = async (reply: Reply): Promise<PostedRef | null> => {
    const out = renderStyled(reply, deps.components);
    try {
      const [first, ...rest] = out;
      const once = nonce && reply.kind === "answer" ? { nonce, enforceNonce: true } : {};
      const posted = await paced(() => message.reply({ ...messageBody(first), allowedMentions: { parse: [], repliedUser: true }, ...once }));
      for (const msg of rest) {
        const channel = message.channel;
        if (channel.isSendable()) await paced<unknown>(() => channel.send({ ...messageBody(msg), allowedMentions: { parse: [] } }));
      }
      deps.log.info(`message ${message.id} answered (${out.length} message${out.length === 1 ? "" : "s"})`);
      return { id: posted.id };
    } catch (err) {
      deps.log.warn(`could not reply to message ${message.id}: ${String(err)}`);
      return null;
    }
  };
  const channel = message.channel;
  return {
    post,
    postPrivate: post,
    files: discordFileSurface(async (msg) => {
      if (!channel.isSendable()) throw new Error("the channel takes no messages from Duet");
      return paced<unknown>(() => channel.send(msg));
    }, Math.min(DISCORD_FILE_MAX_BYTES, deps.fileMaxBytes), deps.log),
    edit: (ref, reply) => editWith((body) => message.channel.messages.edit(ref.id, body), ref, reply, deps),
    queued: () => reactWhileQueued(message, deps.log),
    ...(room ? { live: (onPosted?: (ref: PostedRef) => void) => liveView(messageTarget(message.client.rest, deps.pace, message.channelId, message.id), room, `message ${message.id}`, deps, onPosted) } : {}),
    showProgress() {
      if (!message.channel.isSendable()) return async () => {};
      const channel = message.channel;
      let acked = false;
      const typing = () => {
        // The first typing is the message's acknowledgement: timed under its span; the renewals are not.
        const first = !acked && span;
        acked = true;
        return first ? first.within("chat.typing", () => channel.sendTyping(), { kind: "client" }) : channel.sendTyping();
      };
      return keepRenewing(() => typing().catch((err) => deps.log.info(`typing indicator failed: ${String(err)}`)), deps.typingRenewMs);
    },
  };
}

/**
 * An interaction already deferred (publicly or privately, as commandAudience
 * chose for its command): the first part edits the deferred reply, the rest are
 * follow-ups with the same visibility. The deferral already shows "thinking…".
 */
export function interactionSurface(interaction: ChatInputCommandInteraction, ephemeral: boolean, room: string | null, deps: SurfaceDeps): ChatSurface {
  // Files after an answer follow it; files that are the answer (`get`) take the deferred reply's place.
  let replied = false;
  const post = (reply: Reply) => {
    replied = true;
    return send(interaction, renderStyled(reply, deps.components), ephemeral, deps);
  };
  const sendFiles = async (msg: FilesMessage) => {
    const first = !replied;
    replied = true;
    return first ? interaction.editReply(msg) : followUp(interaction, { ...msg, ephemeral }, deps);
  };
  // The place note's edit of the deferred reply, which the live answer's first edit waits for.
  let noted: Promise<unknown> = Promise.resolve();
  // Discord says how big a file this interaction may carry (boosted servers take more).
  const limit = Math.min(interaction.attachmentSizeLimit ?? DISCORD_FILE_MAX_BYTES, deps.fileMaxBytes);
  return {
    post,
    postPrivate: post,
    // After the deferred reply is shown: a private one is the same message; a public one gets an ephemeral follow-up.
    postSecret: (reply) => (ephemeral ? post(reply) : followUp(interaction, { content: renderReply(reply)[0].content, allowedMentions: { parse: [] }, ephemeral: true }, deps).then((m) => ({ id: m.id }), (err) => (deps.log.warn(`could not answer interaction ${interaction.id} privately: ${String(err)}`), null))),
    files: discordFileSurface(sendFiles, limit, deps.log),
    edit: (ref, reply) => editWith((body) => interaction.webhook.editMessage(ref.id, body), ref, reply, deps),
    showProgress: () => async () => {},
    // Before any answer: the flow tells the place only while the turn waits.
    queued: async (note) => {
      noted = noteInDeferredReply(interaction, note).catch((err) => deps.log.warn(`could not show interaction ${interaction.id} its place: ${String(err)}`));
      await noted;
    },
    // Private answers (history, help) are short and final: only public ones grow.
    ...(ephemeral || !room
      ? {}
      : { live: (onPosted?: (ref: PostedRef) => void) => ((replied = true), liveView(afterNote(interactionTarget(interaction.client.rest, deps.pace, { applicationId: interaction.applicationId, token: interaction.token, channelId: interaction.channelId }), () => noted), room, `interaction ${interaction.id}`, deps, onPosted, post)) }),
  };
}

/**
 * "Ask Duet"'s answer: new messages in the thread on the message asked about,
 * typing shown there meanwhile; what only the asker may see goes as private
 * follow-ups to their submitted modal (its deferred reply already points to
 * the thread).
 */
export function threadSurface(thread: ThreadChannel, interaction: ModalSubmitInteraction, room: string, deps: SurfaceDeps): ChatSurface {
  const what = `ask ${interaction.id}`;
  const paced = <R>(create: () => Promise<R>) => deps.pace.run(thread.id, create);
  return {
    async post(reply) {
      const out = renderStyled(reply, deps.components);
      let first: PostedRef | null = null;
      try {
        for (const msg of out) {
          const sent = await paced(() => thread.send({ ...messageBody(msg), allowedMentions: { parse: [] } }));
          first ??= { id: sent.id };
        }
        deps.log.info(`${what} answered (${out.length} message${out.length === 1 ? "" : "s"})`);
      } catch (err) {
        deps.log.warn(`could not post in thread ${thread.id}: ${String(err)}`);
      }
      return first;
    },
    async postPrivate(reply) {
      const [first] = renderReply(reply);
      const sent = await interaction.followUp({ content: first.content, files: first.files, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } }).catch((err) => deps.log.warn(`could not answer ${what}: ${String(err)}`));
      return sent ? { id: sent.id } : null;
    },
    postSecret(reply) {
      return this.postPrivate(reply);
    },
    files: discordFileSurface((msg) => paced(() => thread.send(msg)), Math.min(DISCORD_FILE_MAX_BYTES, deps.fileMaxBytes), deps.log),
    edit: (ref, reply) => editWith((body) => thread.messages.edit(ref.id, body), ref, reply, deps),
    live: (onPosted?: (ref: PostedRef) => void) => liveView(messageTarget(thread.client.rest, deps.pace, thread.id), room, what, deps, onPosted),
    showProgress: () => keepRenewing(() => thread.sendTyping().catch((err) => deps.log.info(`typing indicator failed: ${String(err)}`)), deps.typingRenewMs),
  };
}

/**
 * A live answer in `target` (`what` names it in logs), ending as the reply's
 * messages; `onPosted` hears of its first message once posted. When they
 * cannot be shown there (an interaction's token ran out), `fallback` posts
 * them its own way.
 */
function liveView(
  target: LiveTarget,
  room: string,
  what: string,
  deps: SurfaceDeps,
  onPosted?: (ref: PostedRef) => void,
  fallback?: (reply: Reply) => Promise<PostedRef | null>,
): LiveView {
  const live = new DiscordLiveMessage(target, deps.log, { room, intervalMs: deps.liveIntervalMs, layout: liveLayout(deps.components), ...(onPosted ? { onPosted: (id: string) => onPosted({ id }) } : {}) });
  return {
    update: (answer) => live.update(answer),
    async finish(reply) {
      const out = renderStyled(reply, deps.components, true);
      const id = await live.finish(out);
      if (!id) return fallback ? fallback(reply) : null;
      deps.log.info(`${what} answered (${out.length} message${out.length === 1 ? "" : "s"})`);
      return { id };
    },
  };
}

/** Shows `reply` in place of what a posted message showed (its first part: an edit is one message). */
async function editWith(edit: (body: { content: string; files: Outgoing["files"]; allowedMentions: { parse: [] } }) => Promise<unknown>, ref: PostedRef, reply: Reply, deps: SurfaceDeps): Promise<boolean> {
  const [first] = renderReply(reply);
  try {
    await edit({ content: first.content, files: first.files, allowedMentions: { parse: [] } });
    return true;
  } catch (err) {
    deps.log.warn(`could not edit message ${ref.id}: ${String(err)}`);
    return false;
  }
}

async function send(interaction: ChatInputCommandInteraction, out: Outgoing[], ephemeral: boolean, deps: SurfaceDeps): Promise<PostedRef | null> {
  const [first, ...rest] = out;
  let sent = 0;
  try {
    const posted = await interaction.editReply({ ...messageBody(first), allowedMentions: { parse: [] } });
    sent++;
    for (const msg of rest) {
      await followUp(interaction, { ...messageBody(msg), allowedMentions: { parse: [] }, ephemeral }, deps);
      sent++;
    }
    deps.log.info(`interaction ${interaction.id} answered (${out.length} message${out.length === 1 ? "" : "s"})`);
    return { id: posted.id };
  } catch (err) {
    if (!(err instanceof DiscordAPIError && TOKEN_GONE.has(Number(err.code))) || ephemeral || !interaction.channel?.isSendable()) {
      deps.log.warn(`could not answer interaction ${interaction.id}: ${String(err)}`);
      return null;
    }
    // The 15-minute token ran out: post in the channel instead, addressed to the user.
    const channel = interaction.channel;
    const intro = ANSWER_NOTES.lateAnswer(`<@${interaction.user.id}>`, `\`/duet ${interaction.options.getSubcommand(false) ?? ""}\``);
    let firstPosted: PostedRef | null = null;
    for (const msg of [{ content: intro, files: [] } as Outgoing, ...out.slice(sent)]) {
      const posted = await deps.pace
        .run<Message>(channel.id, () => channel.send({ ...messageBody(msg), allowedMentions: { users: [interaction.user.id] } }))
        .catch((e) => deps.log.warn(`fallback send failed: ${String(e)}`));
      if (posted && !firstPosted) firstPosted = { id: posted.id };
    }
    deps.log.info(`interaction ${interaction.id} answered in the channel (its token had expired)`);
    return firstPosted;
  }
}

/** A follow-up to an interaction: one everyone sees is a new message in the channel and waits its turn; a private one goes at once. */
function followUp(interaction: ChatInputCommandInteraction, msg: Omit<InteractionReplyOptions, "flags"> & { ephemeral: boolean; flags?: number }, deps: SurfaceDeps): Promise<Message> {
  const { ephemeral, ...body } = msg;
  if (ephemeral) return interaction.followUp({ ...body, flags: (body.flags ?? 0) | MessageFlags.Ephemeral });
  return deps.pace.run(interaction.channelId, () => interaction.followUp(body));
}
