import { ChannelType, MessageType, type Message } from "discord.js";
import { ask } from "@duet/shared";
import { DM_ANSWER } from "./commands.ts";
import { authorName, mentionsAsNames } from "./people.ts";
import type { BotDeps } from "./deps.ts";
import { roomFor } from "./rooms.ts";
import { messageSurface } from "./surfaces.ts";

/**
 * `@Duet ...` in a text channel or thread: the shared ask flow, answered as a
 * reply to the message with typing shown meanwhile. The message id is the
 * Worker's idempotency key, so a redelivered message never runs its commands twice.
 */

/** What people type: a plain message, or a reply to one. Joins, pins, boosts and other notices are Discord's. */
const PERSON_MESSAGE_TYPES: ReadonlySet<MessageType> = new Set([MessageType.Default, MessageType.Reply]);

const EMPTY_MENTION_HINT = "Ask me something after the mention, e.g. `@Duet list the files here`. `/duet help` shows everything I can do.";

/**
 * Only a person's own message starts a turn: never a bot (Duet itself included:
 * two bots would answer each other forever), a webhook, Discord's system user,
 * or a notice Discord writes (a join, a pin, a new thread).
 */
export function isFromPerson(message: Message): boolean {
  return !message.author.bot && !message.author.system && !message.system && !message.webhookId && PERSON_MESSAGE_TYPES.has(message.type);
}

export async function handleMessage(message: Message, deps: BotDeps): Promise<void> {
  if (!isFromPerson(message)) return;
  if (!message.inGuild()) {
    if (message.channel.type === ChannelType.DM) await messageSurface(message, null, deps).post({ kind: "hint", text: DM_ANSWER });
    return;
  }
  const mention = new RegExp(`<@!?${message.client.user.id}>`, "g");
  if (!mention.test(message.content)) return;
  // The Worker would replay its stored answer for a repeated id; this keeps it from being posted twice.
  if (!deps.recentMessages.first(message.id)) return;

  const channel = message.channel;
  const room = roomFor({ guildId: message.guildId, channelId: channel.id, parentId: channel.isThread() ? channel.parentId : null, isThread: channel.isThread() });
  const surface = messageSurface(message, room, deps);
  // Only the mention goes: indentation and blank lines in pasted code stay as typed.
  const asker = { room, user: message.author.id, name: authorName(message), key: message.id };
  await ask(deps.flow, surface, asker, mentionsAsNames(message, message.content.replace(mention, "")), EMPTY_MENTION_HINT);
}
