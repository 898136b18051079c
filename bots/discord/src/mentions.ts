import { ChannelType, MessageType, type Message } from "discord.js";
import { ask, DISCORD_DM_ANSWER, EMPTY_MENTION_HINT, mentionedFact, newClaimant, runCommand, shareFiles, type Span, underEventSpan } from "@duet/shared";
import { authorName, mentionsAsNames } from "./people.ts";
import type { BotDeps } from "./deps.ts";
import { roomFor } from "./rooms.ts";
import { discordTarget } from "./outbox-delivery.ts";
import { messageSurface } from "./surfaces.ts";
import { incomingFiles } from "./files/incoming.ts";

/**
 * `@Duet ...` in a text channel or thread: the shared ask flow, answered as a
 * reply to the message with typing shown meanwhile. The message id is the
 * Worker's idempotency key, so a redelivered message never runs its commands twice.
 */

/** What people type: a plain message, or a reply to one. Joins, pins, boosts and other notices are Discord's. */
const PERSON_MESSAGE_TYPES: ReadonlySet<MessageType> = new Set([MessageType.Default, MessageType.Reply]);

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
    if (message.channel.type === ChannelType.DM) await messageSurface(message, null, deps).post({ kind: "hint", text: DISCORD_DM_ANSWER });
    return;
  }
  // Duet's own managed role (what the member list and autocomplete often offer for "@Duet") mentions Duet too.
  const botRole = message.guild.roles.botRoleFor(message.client.user)?.id;
  const mention = new RegExp(`<@!?${message.client.user.id}>${botRole ? `|<@&${botRole}>` : ""}`, "g");
  if (!mention.test(message.content)) return;
  // The message's span is the root of the turn's trace: its claim, the typing that acknowledges it, then the ask under it.
  const question = message.content.replace(mention, "");
  await underEventSpan(deps.flow.tracing, "discord.message_create", { "duet.event.id": message.id }, (span) => answerMention(message, question, deps, span));
}

/** A mention of Duet in a server: claimed, acknowledged with typing, asked in its room; each step a span under the message's. */
async function answerMention(message: Message<true>, question: string, deps: BotDeps, span: Span): Promise<void> {
  // Only the mention goes (the caller took it out): indentation and blank lines in pasted code stay as typed.
  // The Worker would replay its stored answer for a repeated id; the claim keeps it from being posted twice.
  // A question is claimed by its ask, in its room (no round trip of its own before the answer starts);
  // files go to the workspace before the turn, so they take the Worker's separate claim first.
  // An empty mention without files only gets a hint, which needs neither a claim nor the Worker.
  const scope = `discord-${message.guildId}`;
  // `@Duet remember <fact>` pins it: no turn, so it takes the Worker's separate claim, as files do.
  const fact = message.attachments.size ? null : mentionedFact(mentionsAsNames(message, question));
  const askClaims = !message.attachments.size && fact === null;
  const claimed = askClaims ? deps.claims.firstHere(scope, message.id) : await span.within("duet.claim", () => deps.claims.first(scope, message.id), { kind: "client" });
  if (!claimed) {
    span.set({ "duet.event.repeated": true });
    return;
  }

  const channel = message.channel;
  const room = roomFor({ guildId: message.guildId, channelId: channel.id, parentId: channel.isThread() ? channel.parentId : null, isThread: channel.isThread() });
  span.set({ "gen_ai.conversation.id": room });
  const surface = messageSurface(message, room, deps, span);
  const asker = { room, user: message.author.id, name: authorName(message), key: message.id, ...(askClaims ? { claim: newClaimant() } : {}), deliver: discordTarget(channel.id, message.id), span };
  // Attachment URLs expire: fetched now, into uploads/, before the turn that may read them.
  if (message.attachments.size) await shareFiles(deps.flow, (r) => surface.post(r), asker, incomingFiles([...message.attachments.values()], deps.cdn), "Discord");
  if (fact !== null) await runCommand(deps.flow, surface, asker, { kind: "remember", fact });
  else await ask(deps.flow, surface, asker, mentionsAsNames(message, question), EMPTY_MENTION_HINT);
}
