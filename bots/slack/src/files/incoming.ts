import { declaredLength, fetchFromSource, type IncomingFile, SourceError, type SourceHosts } from "@duet/shared";
import { z } from "zod";

/**
 * Files shared with a message Duet answers (an event's `files[]`), opened from
 * Slack with the bot token: `url_private_download` on Slack's own https hosts
 * only, so the token never leaves Slack (files/source.ts checks every redirect).
 */

/** Where Slack serves files: files.slack.com, and GovSlack's. */
export const SLACK_FILE_HOSTS = [".slack.com", ".slack-gov.com"] as const;

/** The fields of an event's file Duet reads; a file without a download URL (deleted, external, over the plan's limit) has none. */
export const slackFileSchema = z.object({
  id: z.string(),
  name: z.string().optional(),
  title: z.string().optional(),
  mimetype: z.string().optional(),
  size: z.number().int().nonnegative().optional(),
  url_private_download: z.string().optional(),
});
export type SlackFile = z.infer<typeof slackFileSchema>;

export function slackSources(origins: readonly string[]): SourceHosts {
  return { platform: "Slack", hosts: SLACK_FILE_HOSTS, origins };
}

/** The shared files as the flow opens them; `token` is read when a file is opened (the workspace's own under OAuth). */
export function incomingFiles(files: readonly SlackFile[], token: () => string | undefined, src: SourceHosts): IncomingFile[] {
  return files.map((f) => {
    const name = f.name ?? f.title ?? f.id;
    return {
      name,
      ...(f.size !== undefined ? { bytes: f.size } : {}),
      async open(signal: AbortSignal) {
        if (!f.url_private_download) throw new SourceError("unavailable", `file ${f.id} has no download URL`);
        const bearer = token();
        const res = await fetchFromSource(f.url_private_download, src, bearer ? { authorization: `Bearer ${bearer}` } : {}, signal);
        // Without files:read Slack answers its sign-in page (200, HTML) where the file should be.
        const type = res.headers.get("content-type") ?? "";
        if (type.startsWith("text/html") && !f.mimetype?.startsWith("text/html")) {
          await res.body?.cancel().catch(() => undefined);
          throw new SourceError("login_page", `Slack answered HTML for ${f.id} (${f.mimetype ?? "no type"})`);
        }
        return { body: res.body!, bytes: declaredLength(res) };
      },
    };
  });
}
