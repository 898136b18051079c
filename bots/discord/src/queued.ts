import { Routes, type ChatInputCommandInteraction, type Message } from "discord.js";
import type { Unqueue } from "@duet/shared";
import type { Logger } from "./deps.ts";
import type { LiveTarget } from "./live/targets.ts";
import { renderReply } from "./render.ts";

/**
 * How a Discord asker whose question waits behind others is told so. An
 * interaction's deferred reply is theirs: it shows the note until the answer
 * takes its place. A reply to a mention cannot be private, and a reply per
 * waiting person would add to the busy channel what the answers add later,
 * so a mention gets a ⏳ on the message instead, taken off when the answer starts.
 */

export const QUEUED_EMOJI = "⏳";

/** Puts ⏳ on `message`; resolves with what takes it off. */
export async function reactWhileQueued(message: Message, log: Logger): Promise<Unqueue> {
  // Discord wants the emoji URL-encoded in the route; only the bot's own reaction (@me) is added and removed.
  const own = Routes.channelMessageOwnReaction(message.channelId, message.id, encodeURIComponent(QUEUED_EMOJI));
  await message.client.rest.put(own);
  return async () => void (await message.client.rest.delete(own).catch((err) => log.info(`the ${QUEUED_EMOJI} on message ${message.id} could not be taken off: ${String(err)}`)));
}

/** Shows `note` in the interaction's deferred reply ("thinking…" until then); the answer later edits the same message. */
export async function noteInDeferredReply(interaction: ChatInputCommandInteraction, note: string): Promise<void> {
  const [first] = renderReply({ kind: "hint", text: note });
  await interaction.editReply({ content: first.content, allowedMentions: { parse: [] } });
}

/** `target` whose first message waits for `shown` (the note's edit of the same message), so the note never lands over the answer. */
export function afterNote(target: LiveTarget, shown: () => Promise<unknown>): LiveTarget {
  return {
    ...target,
    first: async (p) => {
      await shown();
      return target.first(p);
    },
  };
}
