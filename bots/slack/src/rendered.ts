import { chunkMessage } from "@duet/shared";
import { SECTION_MAX_CHARS, section } from "./run-block.ts";
import type { Block, Upload } from "./slack-api.ts";

/** A Slack message as the bot sends it: notification text, blocks, and files that follow it. */
export interface Rendered {
  text: string;
  blocks: Block[];
  uploads: Upload[];
}

/** Notification text (shown in push notifications and by screen readers) is kept short. */
export const FALLBACK_CHARS = 150;

/** A short notice (help, errors, reset, the run policy) as sections. */
export function renderNotice(mrkdwn: string): Rendered {
  const chunks = chunkMessage(mrkdwn, SECTION_MAX_CHARS);
  return { text: mrkdwn.split("\n")[0].replace(/[*_`]|:[a-z_]+:\s*/g, "").slice(0, FALLBACK_CHARS), blocks: chunks.map(section), uploads: [] };
}
