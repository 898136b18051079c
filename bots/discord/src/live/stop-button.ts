import { type ButtonInteraction, type Interaction, MessageFlags } from "discord.js";
import { isRoomOf, stopClick, type StopTurn } from "@duet/shared";
import type { Logger } from "../deps.ts";
import { roomHere } from "../rooms.ts";
import { STOP_PREFIX } from "./live-message.ts";

/**
 * The Stop button on a live answer, in Discord: the click is read, the shared
 * stop-click flow decides (only a button of the room of the channel or thread
 * it was clicked in stops anything; another bot's click never does), and its
 * words go to the clicker only.
 */

export function isStopClick(interaction: Interaction): interaction is ButtonInteraction {
  return interaction.isButton() && interaction.customId.startsWith(STOP_PREFIX);
}

export async function handleStopClick(interaction: ButtonInteraction, deps: { stop: StopTurn; log: Logger }): Promise<void> {
  const room = interaction.customId.slice(STOP_PREFIX.length);
  const here = roomHere(interaction);
  const content = await stopClick(deps.stop, (line) => deps.log.warn(line), { room, user: interaction.user.id, here: Boolean(here) && isRoomOf(room, here!) && !interaction.user.bot });
  await interaction.reply({ content, flags: MessageFlags.Ephemeral }).catch((err) => deps.log.warn(`could not answer the Stop click ${interaction.id}: ${String(err)}`));
}
