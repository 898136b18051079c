import { DiscordAPIError, MessageFlags, type ButtonInteraction, type Interaction } from "discord.js";
import { type ChatSurface, NOT_A_PROPOSAL, prClick, type Reply } from "@duet/shared";
import type { BotDeps } from "../deps.ts";
import { renderReply } from "../render.ts";
import { roomHere } from "../rooms.ts";
import { permitFor } from "./access.ts";
import { PR_PREFIX, readPrCustomId, withPrDecision } from "./pr-buttons.ts";

/**
 * Open and Skip clicks on a pull request proposal, handled as Run and Skip
 * are: acknowledged at once (a deferred update), the room is the one of the
 * channel or thread it was clicked in, and the shared prClick flow checks
 * who may (by the room's run policy), asks the Worker and answers: privately
 * to the clicker for a refusal or a stale click, in place and in the channel
 * for a decision.
 */

export function isPrClick(interaction: Interaction): interaction is ButtonInteraction {
  return interaction.isButton() && interaction.customId.startsWith(PR_PREFIX);
}

export async function handlePrClick(interaction: ButtonInteraction, deps: BotDeps): Promise<void> {
  const button = readPrCustomId(interaction.customId);
  const room = roomHere(interaction);
  if (!button || !room || interaction.user.bot) {
    await interaction.reply({ content: NOT_A_PROPOSAL, flags: MessageFlags.Ephemeral }).catch(() => {});
    deps.log.warn(`ignored an Open/Skip click ${interaction.id} with an unknown button or outside a server`);
    return;
  }
  try {
    await interaction.deferUpdate();
  } catch (err) {
    deps.log.info(`click ${interaction.id} already handled or expired (${err instanceof DiscordAPIError ? err.code : String(err)})`);
    return;
  }
  const followUp = async (reply: Reply, ephemeral: boolean) => {
    let first = null;
    for (const part of renderReply(reply)) {
      const send = () => interaction.followUp({ content: part.content, files: part.files, allowedMentions: { parse: [] }, ...(ephemeral ? { flags: MessageFlags.Ephemeral } : {}) });
      // A follow-up everyone sees is a new message in the channel: it waits the channel's turn.
      const sent = await (ephemeral ? send() : deps.pace.run(interaction.channelId, send)).catch((err) => deps.log.warn(`could not answer click ${interaction.id}: ${String(err)}`));
      if (!sent) return null;
      first ??= { id: sent.id };
    }
    return first;
  };
  const surface: ChatSurface = {
    post: (reply) => followUp(reply, false),
    postPrivate: (reply) => followUp(reply, true),
    async edit(_ref, reply) {
      if (reply.kind !== "pr-decided") return false;
      const shown = withPrDecision(interaction.message.content, reply.opened ? { opened: reply.opened, by: reply.by } : { skippedBy: reply.by });
      try {
        await interaction.editReply({ content: shown.content, components: shown.components, allowedMentions: { parse: [] } });
        return true;
      } catch (err) {
        deps.log.warn(`could not show the decision on message ${interaction.message.id}: ${String(err)}`);
        return false;
      }
    },
    showProgress: () => async () => {},
  };
  const asker = { room, user: interaction.user.id, key: interaction.id, permit: permitFor(deps.access, interaction) };
  await prClick(deps.flow, surface, asker, { proposalId: button.id, decision: button.decision, message: { id: interaction.message.id }, threadUrl: interaction.message.url });
  deps.log.info(`click ${interaction.id} answered`);
}
