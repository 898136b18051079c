import { type ButtonInteraction, type Interaction, MessageFlags } from "discord.js";
import { decide, type DecidedApproval, LatestShown, NOT_A_PROPOSAL } from "@duet/shared";
import type { BotDeps } from "../deps.ts";
import { acceptClick, type ClickedMessage, clickSurface } from "./click-reply.ts";
import { roomHere } from "../rooms.ts";
import { permitFor } from "../control/access.ts";
import { APPROVAL_PREFIX, decidedLines, readApprovalCustomId, type RowJson, withDecision, withoutDecided } from "../control/approval-buttons.ts";
import type { ContainerChild, TopLevelJson } from "../components-json.ts";

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
const latest = new LatestShown<ClickedMessage>();

function shownNow(interaction: ButtonInteraction): ClickedMessage {
  const kept = latest.get(interaction.message.id);
  if (kept) return kept;
  const components = interaction.message.components.map((c) => c.toJSON() as unknown as TopLevelJson);
  return { content: interaction.message.content, components, v2: interaction.message.flags.has(MessageFlags.IsComponentsV2) };
}

/** What the message shows once `approval` (command `n`) was decided: in a V2 message, its proposal's display and rows in the container. */
function decided(before: ClickedMessage, n: number, approval: DecidedApproval): ClickedMessage {
  if (!before.v2) return withDecision(before.content, before.components as RowJson[], n, approval);
  const inside = (children: ContainerChild[]): ContainerChild[] =>
    children.flatMap((c): ContainerChild[] => {
      if (c.type === 10) return [{ ...c, content: decidedLines(c.content, n, approval) }];
      return c.type === 1 ? withoutDecided([c], approval) : [c];
    });
  return { ...before, components: before.components.map((c) => (c.type === 17 ? { ...c, components: inside(c.components) } : c)) };
}

export async function handleApprovalClick(interaction: ButtonInteraction, deps: BotDeps): Promise<void> {
  const button = readApprovalCustomId(interaction.customId);
  const room = roomHere(interaction);
  if (!(await acceptClick(interaction, deps, !!button && !!room, NOT_A_PROPOSAL, "Run/Skip")) || !button || !room) return;
  const surface = clickSurface(interaction, deps, (reply) => {
    if (reply.kind !== "decided") return null;
    const shown = decided(shownNow(interaction), button.n, reply.approval);
    latest.set(interaction.message.id, shown);
    return shown;
  });
  const asker = { room, user: interaction.user.id, key: interaction.id, permit: permitFor(deps.access, interaction) };
  await decide(deps.flow, surface, asker, { approvalId: button.id, decision: button.decision, message: { id: interaction.message.id } });
  deps.log.info(`click ${interaction.id} answered`);
}
