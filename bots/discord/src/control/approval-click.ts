import { DiscordAPIError, MessageFlags, type ButtonInteraction, type Interaction } from "discord.js";
import { type ChatSurface, decide, LatestShown, NOT_A_PROPOSAL, type Reply } from "@duet/shared";
import type { BotDeps } from "../deps.ts";
import { renderReply } from "../render.ts";
import { roomHere } from "../rooms.ts";
import { permitFor } from "./access.ts";
import { APPROVAL_PREFIX, readApprovalCustomId, type RowJson, withDecision } from "./approval-buttons.ts";

/**
 * Run and Skip clicks on a proposal. The click is acknowledged at once (a
 * deferred update: Discord's 3 s), the room is the one of the channel or
 * thread it was clicked in (a button can never decide another room's
 * command: that room's Worker does not know the id), and the shared decide
 * flow checks who may, asks the Worker and answers: privately to the clicker
 * for a refusal or a stale click, in place and in the channel for a decision.
 */

export function isApprovalClick(interaction: Interaction): interaction is ButtonInteraction {
  return interaction.isButton() && interaction.customId.startsWith(APPROVAL_PREFIX);
}

/** Proposal messages this process last wrote, so two quick decisions on one message keep each other's line. */
const latest = new LatestShown<{ content: string; components: RowJson[] }>();

function shownNow(interaction: ButtonInteraction): { content: string; components: RowJson[] } {
  const kept = latest.get(interaction.message.id);
  if (kept) return kept;
  const components = interaction.message.components.map((row) => row.toJSON() as unknown as RowJson);
  return { content: interaction.message.content, components };
}

export async function handleApprovalClick(interaction: ButtonInteraction, deps: BotDeps): Promise<void> {
  const button = readApprovalCustomId(interaction.customId);
  const room = roomHere(interaction);
  if (!button || !room || interaction.user.bot) {
    await interaction.reply({ content: NOT_A_PROPOSAL, flags: MessageFlags.Ephemeral }).catch(() => {});
    deps.log.warn(`ignored a Run/Skip click ${interaction.id} with an unknown button or outside a server`);
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
      if (reply.kind !== "decided") return false;
      const before = shownNow(interaction);
      const shown = withDecision(before.content, before.components, button.n, reply.approval);
      latest.set(interaction.message.id, shown);
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
  await decide(deps.flow, surface, asker, { approvalId: button.id, decision: button.decision, message: { id: interaction.message.id } });
  deps.log.info(`click ${interaction.id} answered`);
}
