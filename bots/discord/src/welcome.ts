import { type ChannelPace, WELCOME_LINES } from "@duet/shared";
import { type Guild, PermissionFlagsBits } from "discord.js";
import type { Logger } from "./deps.ts";

/**
 * When the bot is added to a server, one message in the server's system channel
 * says what Duet is and how to use it. Servers without a system channel, or where
 * the bot may not post there, get nothing: Duet never picks a channel on its own.
 */

export const WELCOME_TEXT = `👋 ${WELCOME_LINES.discord.join("\n")}`;

export async function welcome(guild: Guild, pace: ChannelPace, log: Logger): Promise<void> {
  const channel = guild.systemChannel;
  const me = guild.members.me;
  if (!channel || !me) return;
  if (!channel.permissionsFor(me)?.has([PermissionFlagsBits.ViewChannel, PermissionFlagsBits.SendMessages])) {
    log.info(`no welcome in ${guild.id}: the bot may not post in the system channel`);
    return;
  }
  await pace.run(channel.id, () => channel.send({ content: WELCOME_TEXT, allowedMentions: { parse: [] } }));
}
