import { DiscordAPIError, MessageFlags, type ButtonInteraction } from "discord.js";
import type { ChatSurface, Reply } from "@duet/shared";
import type { BotDeps } from "../deps.ts";
import { renderReply } from "../render.ts";
import { IS_COMPONENTS_V2 } from "../render-v2.ts";
import type { TopLevelJson } from "../components-json.ts";

/**
 * What every button click of Duet's does first and how it answers: a button
 * Duet does not know (or pressed outside a server, or by a bot) is told so
 * privately; any other is acknowledged at once with a deferred update
 * (Discord's 3 s), and its answers go out as follow-ups or as edits of the
 * clicked message.
 */

/** Acknowledges a click, or refuses it with `unknown` (said only to the clicker); false when there is nothing more to do. */
export async function acceptClick(interaction: ButtonInteraction, deps: BotDeps, known: boolean, unknown: string, what: string): Promise<boolean> {
  if (!known || interaction.user.bot) {
    await interaction.reply({ content: unknown, flags: MessageFlags.Ephemeral }).catch(() => {});
    deps.log.warn(`ignored a ${what} click ${interaction.id} with an unknown button or outside a server`);
    return false;
  }
  try {
    await interaction.deferUpdate();
    return true;
  } catch (err) {
    deps.log.info(`click ${interaction.id} already handled or expired (${err instanceof DiscordAPIError ? err.code : String(err)})`);
    return false;
  }
}

/** What the clicked message becomes for a reply; null when the reply does not change it. */
export type ClickEdit = (reply: Reply) => ClickedMessage | null;

/** What a clicked message shows: its content and rows, or (a V2 message) its container alone. */
export interface ClickedMessage {
  content: string;
  components: TopLevelJson[];
  v2?: boolean;
}

/** How a click answers: follow-ups in the channel or to the clicker alone, and edits of the clicked message (one that fails is logged). */
export function clickSurface(interaction: ButtonInteraction, deps: BotDeps, edit: ClickEdit): ChatSurface {
  const followUp = clickFollowUp(interaction, deps);
  return {
    post: (reply) => followUp(reply, false),
    postPrivate: (reply) => followUp(reply, true),
    async edit(_ref, reply) {
      const next = edit(reply);
      if (!next) return false;
      try {
        const body = next.v2 ? { components: next.components, flags: IS_COMPONENTS_V2 } : { content: next.content, components: next.components };
        await interaction.editReply({ ...body, allowedMentions: { parse: [] } });
        return true;
      } catch (err) {
        deps.log.warn(`could not edit message ${interaction.message.id}: ${String(err)}`);
        return false;
      }
    },
    showProgress: () => async () => {},
  };
}

/** Posts a reply to a click as follow-ups, privately or in the channel (there, in the channel's pace); the first message's id. */
function clickFollowUp(interaction: ButtonInteraction, deps: BotDeps): (reply: Reply, ephemeral: boolean) => Promise<{ id: string } | null> {
  return async (reply, ephemeral) => {
    let first: { id: string } | null = null;
    for (const part of renderReply(reply)) {
      const send = () => interaction.followUp({ content: part.content, files: part.files, allowedMentions: { parse: [] }, ...(ephemeral ? { flags: MessageFlags.Ephemeral } : {}) });
      // A follow-up everyone sees is a new message in the channel: it waits the channel's turn.
      const sent = await (ephemeral ? send() : deps.pace.run(interaction.channelId, send)).catch((err) => deps.log.warn(`could not answer click ${interaction.id}: ${String(err)}`));
      if (!sent) return null;
      first ??= { id: sent.id };
    }
    return first;
  };
}
