import { type ButtonInteraction, type Interaction, MessageFlags } from "discord.js";
import { STOP_WORDS, type StopTurn } from "@duet/shared";
import type { Logger } from "../deps.ts";
import { roomFor } from "../rooms.ts";
import { STOP_PREFIX } from "./live-message.ts";

/**
 * The Stop button on a live answer: whoever clicks it stops the room's running
 * turn. Discord shows the button to people who can see the channel, and the room
 * the button names must be the room of the channel (or thread) it was clicked
 * in, so a click can never stop another room's turn. The clicker is told,
 * privately, whether there was a turn to stop.
 */


export function isStopClick(interaction: Interaction): interaction is ButtonInteraction {
  return interaction.isButton() && interaction.customId.startsWith(STOP_PREFIX);
}

export async function handleStopClick(interaction: ButtonInteraction, deps: { stop: StopTurn; log: Logger }): Promise<void> {
  const room = interaction.customId.slice(STOP_PREFIX.length);
  const here =
    interaction.guildId && interaction.channelId
      ? roomFor({
          guildId: interaction.guildId,
          channelId: interaction.channelId,
          parentId: interaction.channel?.isThread() ? interaction.channel.parentId : null,
          isThread: Boolean(interaction.channel?.isThread()),
        })
      : null;
  let content: string;
  if (room !== here || interaction.user.bot) {
    deps.log.warn(`ignored a Stop click in ${here ?? "a direct message"} for another room (${room.slice(0, 80)})`);
    content = STOP_WORDS.notThisRoom;
  } else {
    try {
      content = (await deps.stop(room, interaction.user.id)).stopped ? STOP_WORDS.stopping : STOP_WORDS.nothingToStop;
    } catch (err) {
      deps.log.warn(`stop in ${room} failed: ${(err as Error).message}`);
      content = `⚠️ Duet could not stop that answer: ${(err as Error).message}`;
    }
  }
  await interaction.reply({ content, flags: MessageFlags.Ephemeral }).catch((err) => deps.log.warn(`could not answer the Stop click ${interaction.id}: ${String(err)}`));
}
