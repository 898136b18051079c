import type { ButtonInteraction, Interaction } from "discord.js";
import { type Asker, chooseReset, decideFact, LatestShown, MEMORY_BUTTON_UNKNOWN } from "@duet/shared";
import type { BotDeps } from "../deps.ts";
import { acceptClick, clickSurface } from "./click-reply.ts";
import { commandUserName } from "../people.ts";
import { renderReply } from "../render.ts";
import { roomHere } from "../rooms.ts";
import { permitFor } from "../control/access.ts";
import type { RowJson } from "../control/approval-buttons.ts";
import { FACT_PREFIX, readFactCustomId, readResetCustomId, RESET_PREFIX, withFactDecision } from "../control/memory-buttons.ts";

/**
 * Clicks on the room's memory buttons: a reset's Keep / Reset everything /
 * Cancel, and Pin n / Dismiss n on facts the model proposed. Acknowledged at
 * once (a deferred update), the room is the channel's or thread's the click
 * came from; the shared flows check who may and ask the Worker, which keeps a
 * stale or repeated click from resetting or pinning twice. What went wrong is
 * told to the clicker only; what was done shows in place of the buttons.
 */

export function isMemoryClick(interaction: Interaction): interaction is ButtonInteraction {
  return interaction.isButton() && (interaction.customId.startsWith(RESET_PREFIX) || interaction.customId.startsWith(FACT_PREFIX));
}

/** Proposal messages this process last wrote, so two quick clicks on one message keep each other's line. */
const latest = new LatestShown<{ content: string; components: RowJson[] }>();

export async function handleMemoryClick(interaction: ButtonInteraction, deps: BotDeps): Promise<void> {
  const reset = readResetCustomId(interaction.customId);
  const fact = readFactCustomId(interaction.customId);
  const room = roomHere(interaction);
  if (!(await acceptClick(interaction, deps, (!!reset || !!fact) && !!room, MEMORY_BUTTON_UNKNOWN, "memory")) || (!reset && !fact) || !room) return;
  const surface = clickSurface(interaction, deps, (reply) => {
    if (reply.kind === "reset" || reply.kind === "reset-cancelled") return { content: renderReply(reply)[0].content, components: [] };
    if (reply.kind !== "fact-decided" || !fact) return null;
    const before = latest.get(interaction.message.id) ?? { content: interaction.message.content, components: interaction.message.components.map((row) => row.toJSON() as unknown as RowJson) };
    const next = withFactDecision(before.content, before.components, fact.n, reply);
    latest.set(interaction.message.id, next);
    return next;
  });
  const message = { id: interaction.message.id };
  if (reset) {
    const asker: Asker = { room, user: interaction.user.id, key: interaction.id, permit: permitFor(deps.access, interaction) };
    await chooseReset(deps.flow, surface, asker, { choice: reset.choice, resetAt: reset.resetAt, message });
  } else if (fact) {
    const asker: Asker = { room, user: interaction.user.id, name: commandUserName(interaction), key: interaction.id };
    await decideFact(deps.flow, surface, asker, { proposalId: fact.id, decision: fact.decision, message });
  }
  deps.log.info(`click ${interaction.id} answered`);
}
