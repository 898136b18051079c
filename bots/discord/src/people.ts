import type { ChatInputCommandInteraction, Message } from "discord.js";

/**
 * People's display names as Discord gives them with each event: the member's
 * server nickname, else their global display name, else their username. No
 * extra request: the message and the interaction carry them, and discord.js
 * caches members as they come.
 */

/** A user mention as Discord writes it: `<@123>`, or `<@!123>` from older clients. */
const USER_MENTION = /<@!?(\d+)>/g;

/** The author's display name in the server the message was posted in. */
export function authorName(message: Message): string {
  return message.member?.displayName ?? message.author.displayName;
}

/** The person running a command (or clicking a button), by their display name in that server. */
export function commandUserName(interaction: Pick<ChatInputCommandInteraction, "member" | "user">): string {
  const member = interaction.member;
  if (member && "displayName" in member && typeof member.displayName === "string") return member.displayName;
  return (member && "nick" in member && member.nick) || interaction.user.displayName;
}

/** The message's text with each user mention it resolved written `@Name`; a mention Discord did not resolve stays as it is. */
export function mentionsAsNames(message: Message, text: string): string {
  return text.replace(USER_MENTION, (whole, id: string) => {
    const name = message.mentions.members?.get(id)?.displayName ?? message.mentions.users.get(id)?.displayName;
    return name ? `@${name}` : whole;
  });
}
