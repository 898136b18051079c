import { ChannelType, type Message } from "discord.js";
import { describeForUser, keepRenewing, sanitizeChatText } from "@duet/shared";
import { DM_ANSWER } from "./commands.ts";
import type { BotDeps } from "./deps.ts";
import { renderMessage, renderNotice, type Outgoing } from "./render.ts";
import { roomFor } from "./rooms.ts";

/**
 * `@Duet ...` in a text channel or thread: a typing indicator while the
 * Worker works, then a reply to the message. The message id is the Worker's
 * idempotency key, so a redelivered message never runs its commands twice.
 */

export async function handleMessage(message: Message, deps: BotDeps): Promise<void> {
  // Never answer a bot (ourselves included) or a webhook: two bots would answer each other forever.
  if (message.author.bot || message.webhookId || message.system) return;
  const botId = message.client.user.id;

  if (!message.inGuild()) {
    if (message.channel.type === ChannelType.DM) await reply(message, renderNotice(DM_ANSWER), deps);
    return;
  }
  const mention = new RegExp(`<@!?${botId}>`, "g");
  if (!mention.test(message.content)) return;
  // The Worker would replay its stored answer for a repeated id; this keeps it from being posted twice.
  if (!deps.recentMessages.first(message.id)) return;
  // Only the mention goes: indentation and blank lines in pasted code stay as typed.
  const text = sanitizeChatText(message.content.replace(mention, ""));
  if (!text) {
    await reply(message, renderNotice("Ask me something after the mention, e.g. `@Duet list the files here`. `/duet help` shows everything I can do."), deps);
    return;
  }

  const channel = message.channel;
  const stopTyping = keepTyping(message, deps);
  let out: Outgoing[];
  let room = `channel ${channel.id}`;
  try {
    room = roomFor({ guildId: message.guildId, channelId: channel.id, parentId: channel.isThread() ? channel.parentId : null, isThread: channel.isThread() });
    const res = await deps.worker.message(room, { text, userId: message.author.id, idempotencyKey: message.id });
    deps.cleaner.forget(room);
    out = renderMessage(res, deps.secrets);
  } catch (err) {
    deps.log.warn(`mention in ${room} failed: ${err instanceof Error ? err.message : String(err)}`);
    out = renderNotice(describeForUser(err));
  } finally {
    await stopTyping();
  }
  await reply(message, out, deps);
}

/** Typing until the returned stop(), which waits out a call in flight so typing never shows after the reply. */
function keepTyping(message: Message, deps: BotDeps): () => Promise<void> {
  if (!message.channel.isSendable()) return async () => {};
  const channel = message.channel;
  return keepRenewing(() => channel.sendTyping().catch((err) => deps.log.info(`typing indicator failed: ${String(err)}`)), deps.typingRenewMs);
}

/** The first part replies to the message; the rest follow in the same channel. Mentions never ping. */
async function reply(message: Message, out: Outgoing[], deps: BotDeps): Promise<void> {
  try {
    const [first, ...rest] = out;
    await message.reply({ content: first.content, files: first.files, allowedMentions: { parse: [], repliedUser: true } });
    for (const msg of rest) {
      if (message.channel.isSendable()) await message.channel.send({ content: msg.content, files: msg.files, allowedMentions: { parse: [] } });
    }
    deps.log.info(`message ${message.id} answered (${out.length} message${out.length === 1 ? "" : "s"})`);
  } catch (err) {
    deps.log.warn(`could not reply to message ${message.id}: ${String(err)}`);
  }
}
