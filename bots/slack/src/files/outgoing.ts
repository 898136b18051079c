import type { FileSurface, OutgoingFile } from "@duet/shared";
import type { Logger, webApi } from "@slack/bolt";
import { type NewMessage, slackErrorCode, withRetryAfter } from "../slack-api.ts";

/**
 * Workspace files posted into a Slack conversation through the external
 * upload flow: `files.getUploadURLExternal` per file, its bytes streamed from
 * the Worker to the upload URL (never whole in memory), then one
 * `files.completeUploadExternal` shares them all, images shown inline by Slack.
 * Only that last call posts a message. An answer's files go to the upload URL
 * while the answer is still being posted, and their share follows the answer
 * at once (Slack rates files.completeUploadExternal in its own tier 4, not by
 * chat.postMessage's one a second per channel; a short burst is allowed):
 * the channel's next message waits its turn after the share. A file posted on
 * its own (`get`) waits the channel's turn like any new message.
 */

/** Slack takes files up to 1 GB; DUET_FILE_MAX_BYTES is far below, and the flow applies the smaller. */
export const SLACK_FILE_MAX_BYTES = 1024 * 1024 * 1024;

/** The bot's pace for new messages in a channel (SlackOut): in its turn, or at once after the message it completes. */
export interface SharePace {
  newMessage: NewMessage;
  followMessage: NewMessage;
}

export function slackFileSurface(client: webApi.WebClient, logger: Logger, pace: SharePace, place: { channel: string; threadTs?: string }): FileSurface {
  return {
    platform: "Slack",
    maxBytes: SLACK_FILE_MAX_BYTES,
    async send(files, comment, after) {
      try {
        const uploaded: { id: string; title: string }[] = [];
        for (const file of files) uploaded.push(await uploadOne(client, logger, file));
        // The answer was not posted: the uploads are never completed, so never shown.
        if (after && !(await after)) return false;
        const share = () =>
          withRetryAfter(
            () =>
              client.files.completeUploadExternal({
                files: uploaded as [{ id: string; title: string }],
                channel_id: place.channel,
                ...(place.threadTs ? { thread_ts: place.threadTs } : {}),
                ...(comment ? { initial_comment: comment } : {}),
              }),
            logger,
            "files.completeUploadExternal",
          );
        await (after ? pace.followMessage(place.channel, share) : pace.newMessage(place.channel, share));
        return true;
      } catch (err) {
        logger.warn(`Posting ${files.map((f) => f.path).join(", ")} to Slack failed: ${slackErrorCode(err)} ${String((err as {cause?: unknown}).cause)}`);
        return false;
      }
    },
  };
}

async function uploadOne(client: webApi.WebClient, logger: Logger, file: OutgoingFile): Promise<{ id: string; title: string }> {
  const target = await withRetryAfter(() => client.files.getUploadURLExternal({ filename: file.name, length: file.bytes }), logger, "files.getUploadURLExternal");
  if (!target.upload_url || !target.file_id) throw new Error("files.getUploadURLExternal gave no upload URL");
  const body = await file.open();
  // The upload URL is signed by Slack for this one file: no token goes with it.
  const res = await fetch(target.upload_url, {
    method: "POST",
    headers: { "content-type": "application/octet-stream", "content-length": String(file.bytes) },
    body,
    duplex: "half",
    // Following a redirect would make fetch tee the body and keep all of it (see shared/src/client/transport.ts).
    redirect: "error",
  } as RequestInit);
  await res.body?.cancel().catch(() => undefined);
  if (!res.ok) throw new Error(`the upload URL answered HTTP ${res.status}`);
  return { id: target.file_id, title: file.name };
}
