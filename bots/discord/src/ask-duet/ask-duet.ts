import { askAbout, askAboutProblem, ASK_ABOUT_WORDS, isAllowedSource, QUOTED_FILES_MAX, sanitizeChatText, shareFiles, type QuotedMessage, type SourceHosts } from "@duet/shared";
import { DiscordAPIError, MessageFlags, type Interaction, type Message, type MessageContextMenuCommandInteraction, type ModalSubmitInteraction } from "discord.js";
import { permitFor } from "../control/access.ts";
import type { BotDeps } from "../deps.ts";
import { incomingFiles } from "../files/incoming.ts";
import { ALREADY_HANDLED } from "../interaction-errors.ts";
import { discordTarget } from "../outbox-delivery.ts";
import { authorName, commandUserName, mentionsAsNames } from "../people.ts";
import { roomFor, roomHere } from "../rooms.ts";
import { threadSurface } from "../surfaces.ts";
import { answerThread } from "./answer-thread.ts";
import { askedMessageId, isQuestionModal, QUESTION_INPUT, questionModal } from "./ask-modal.ts";

/**
 * "Ask Duet" from a message's Apps menu (a message context-menu command):
 * Duet opens a modal for the question, and on submit answers in a thread on
 * that message (the one already there, or a new one), in that thread's room,
 * with the message quoted as data with its author, its files put in the
 * thread room's uploads/ first. Whatever stops it (an
 * empty or long question, a deleted message, a thread Discord refuses) is
 * one line only the asker sees, and nothing is asked.
 */

export function isAskDuet(i: Interaction): i is MessageContextMenuCommandInteraction | ModalSubmitInteraction {
  return (i.isMessageContextMenuCommand() && i.commandName === ASK_ABOUT_WORDS.command) || (i.isModalSubmit() && isQuestionModal(i.customId));
}

export async function handleAskDuet(i: MessageContextMenuCommandInteraction | ModalSubmitInteraction, deps: BotDeps, acked?: () => void): Promise<void> {
  return i.isModalSubmit() ? answer(i, deps, acked) : openModal(i, deps, acked);
}

/** One line only the asker sees, as the interaction's reply. */
async function refuse(i: MessageContextMenuCommandInteraction | ModalSubmitInteraction, text: string, deps: BotDeps): Promise<void> {
  await i.reply({ content: text, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } }).catch((err) => deps.log.warn(`could not answer interaction ${i.id}: ${String(err)}`));
}

/**
 * The message as Discord shows it to the model: its text with mentions as names, its author's name, its files' names;
 * and where to fetch its files: only URLs on Discord's file hosts (checked again on each fetch), at most as many as a message holds.
 */
function quoted(message: Message, cdn: SourceHosts): QuotedMessage {
  const files = [...message.attachments.values()];
  const fetchable = files.filter((a) => URL.canParse(a.url) && isAllowedSource(new URL(a.url), cdn)).slice(0, QUOTED_FILES_MAX);
  return {
    author: authorName(message),
    text: mentionsAsNames(message, message.content),
    files: files.map((a) => a.name),
    ...(fetchable.length ? { attachments: fetchable.map((a) => ({ name: a.name, size: a.size, url: a.url })) } : {}),
  };
}

async function openModal(i: MessageContextMenuCommandInteraction, deps: BotDeps, acked?: () => void): Promise<void> {
  if (!i.inGuild()) return refuse(i, ASK_ABOUT_WORDS.notHere, deps);
  const msg = quoted(i.targetMessage, deps.cdn);
  if (!sanitizeChatText(msg.text)) return refuse(i, ASK_ABOUT_WORDS.noText, deps);
  const room = roomHere(i);
  if (!room) return refuse(i, ASK_ABOUT_WORDS.notHere, deps);
  // Discord drops an interaction not answered within 3 s, and a waking Worker may take longer: the message is
  // kept beside the modal, never before it. A keep that fails is logged; the submission then says so.
  const keeping = deps.asked.remember(room, i.user.id, i.targetId, msg);
  try {
    await i.showModal(questionModal(i.targetId));
    acked?.();
  } catch (err) {
    deps.log.warn(`could not open the Ask Duet modal for interaction ${i.id}: ${String(err)}`);
  }
  await keeping;
}

/** The message, read again now: null when it was deleted or Duet cannot see where it is. */
async function readMessage(i: ModalSubmitInteraction, messageId: string): Promise<Message<true> | null> {
  const channel = i.channel ?? (i.channelId ? await i.client.channels.fetch(i.channelId).catch(() => null) : null);
  if (!channel?.isTextBased() || channel.isDMBased()) return null;
  return channel.messages.fetch({ message: messageId, force: true }).catch(() => null);
}

/** What was typed in the question field; "" when the submission has none (a malformed one). */
function typedQuestion(i: ModalSubmitInteraction): string {
  try {
    return i.fields.getTextInputValue(QUESTION_INPUT);
  } catch {
    return "";
  }
}

async function answer(i: ModalSubmitInteraction, deps: BotDeps, acked?: () => void): Promise<void> {
  const messageId = askedMessageId(i.customId);
  if (!messageId || !i.inGuild()) return refuse(i, ASK_ABOUT_WORDS.notHere, deps);
  const question = typedQuestion(i);
  // Discord closes a submitted modal, so the rule is said beside it rather than under the field.
  const problem = askAboutProblem(question);
  if (problem) return refuse(i, problem, deps);
  try {
    await i.deferReply({ flags: MessageFlags.Ephemeral });
    acked?.();
  } catch (err) {
    if (err instanceof DiscordAPIError && ALREADY_HANDLED.has(Number(err.code))) deps.log.info(`interaction ${i.id} already handled or expired (${err.code}); skipping`);
    else deps.log.warn(`could not defer interaction ${i.id}: ${String(err)}`);
    return;
  }
  const say = (text: string) => i.editReply({ content: text, allowedMentions: { parse: [] } }).catch((err) => deps.log.warn(`could not answer interaction ${i.id}: ${String(err)}`));
  // Its text as the command showed it, kept in its room: a read now comes without it (no Message Content intent).
  const askedIn = roomHere(i);
  const kept = askedIn ? await deps.asked.take(askedIn, i.user.id, messageId) : null;
  const message = await readMessage(i, messageId);
  if (!message) return void (await say(ASK_ABOUT_WORDS.unreadable));
  const msg = kept ?? quoted(message, deps.cdn);
  if (!sanitizeChatText(msg.text)) return void (await say(kept ? ASK_ABOUT_WORDS.noText : ASK_ABOUT_WORDS.notKept(question)));
  const thread = await answerThread(message, question, deps.log);
  if (!thread) return void (await say(ASK_ABOUT_WORDS.threadRefused));
  await say(ASK_ABOUT_WORDS.answersIn(`<#${thread.id}>`));
  const room = roomFor({ guildId: i.guildId, channelId: thread.id, parentId: thread.parentId, isThread: true });
  const asker = { room, user: i.user.id, name: commandUserName(i), key: i.id, permit: permitFor(deps.access, i), buttons: true, deliver: discordTarget(thread.id) };
  const surface = threadSurface(thread, i, room, deps);
  // Attachment URLs are given with the command only, and expire: the files go to uploads/ now, before the turn, as a mention's do.
  if (msg.attachments?.length) await shareFiles(deps.flow, (r) => surface.post(r), asker, incomingFiles(msg.attachments, deps.cdn), "Discord");
  await askAbout(deps.flow, surface, asker, question, msg);
}
