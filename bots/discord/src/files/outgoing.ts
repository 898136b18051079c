import { isImageType, type FileSurface, type OutgoingFile } from "@duet/shared";
import type { Logger } from "../deps.ts";

/**
 * Workspace files posted to Discord as message attachments: at most 10 a
 * message and never more than the size limit a message (discord.js sends a
 * message's files as one multipart body it builds in memory, so that limit is
 * also what the bot holds at once). Images are shown in an embed each.
 */

/** What Discord accepts per file from a bot without boosts; interactions say their own (`attachment_size_limit`). */
export const DISCORD_FILE_MAX_BYTES = 10 * 1024 * 1024;
/** Attachments (and embeds) per message. */
export const DISCORD_FILES_PER_MESSAGE = 10;

export interface FilesMessage {
  content?: string;
  files: { attachment: Buffer; name: string }[];
  embeds: { image: { url: string } }[];
  allowedMentions: { parse: [] };
}

/** `send` posts one message (a reply, a channel message, an interaction's reply or follow-up). */
export function discordFileSurface(send: (msg: FilesMessage) => Promise<unknown>, maxBytes: number, log: Logger): FileSurface {
  return {
    platform: "Discord",
    maxBytes,
    async send(files, comment, after) {
      try {
        let first = true;
        for (const batch of batches(files, maxBytes)) {
          const parts = [];
          for (const f of batch) parts.push({ attachment: Buffer.from(await new Response(await f.open()).arrayBuffer()), name: f.name });
          const embeds = batch.filter((f) => isImageType(f.type)).map((f) => ({ image: { url: `attachment://${f.name}` } }));
          // An answer's files: the first message's bytes are read while the answer is posted, and sent after it.
          if (first && after && !(await after)) return false;
          await send({ ...(first && comment ? { content: comment } : {}), files: parts, embeds, allowedMentions: { parse: [] } });
          first = false;
        }
        return true;
      } catch (err) {
        log.warn(`could not post ${files.map((f) => f.path).join(", ")}: ${String(err)}`);
        return false;
      }
    },
  };
}

/** Files in messages of at most 10, each message within `maxBytes` in all (a file alone never exceeds it: the flow saw to that). */
function batches(files: readonly OutgoingFile[], maxBytes: number): OutgoingFile[][] {
  const out: OutgoingFile[][] = [];
  let current: OutgoingFile[] = [];
  let size = 0;
  for (const f of files) {
    if (current.length && (current.length === DISCORD_FILES_PER_MESSAGE || size + f.bytes > maxBytes)) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(f);
    size += f.bytes;
  }
  if (current.length) out.push(current);
  return out;
}
