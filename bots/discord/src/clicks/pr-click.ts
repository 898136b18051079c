import type { ButtonInteraction, Interaction } from "discord.js";
import { NOT_A_PROPOSAL, prClick } from "@duet/shared";
import type { BotDeps } from "../deps.ts";
import { acceptClick, clickSurface } from "./click-reply.ts";
import { roomHere } from "../rooms.ts";
import { permitFor } from "../control/access.ts";
import { PR_PREFIX, readPrCustomId, withPrDecision } from "../control/pr-buttons.ts";

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
  if (!(await acceptClick(interaction, deps, !!button && !!room, NOT_A_PROPOSAL, "Open/Skip")) || !button || !room) return;
  const surface = clickSurface(interaction, deps, (reply) =>
    reply.kind === "pr-decided" ? withPrDecision(interaction.message.content, reply.opened ? { opened: reply.opened, by: reply.by } : { skippedBy: reply.by }) : null,
  );
  const asker = { room, user: interaction.user.id, key: interaction.id, permit: permitFor(deps.access, interaction) };
  await prClick(deps.flow, surface, asker, { proposalId: button.id, decision: button.decision, message: { id: interaction.message.id }, threadUrl: interaction.message.url });
  deps.log.info(`click ${interaction.id} answered`);
}
