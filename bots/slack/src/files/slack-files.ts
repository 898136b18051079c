import type { FileSurface, IncomingFile } from "@duet/shared";
import type { Logger, webApi } from "@slack/bolt";
import { currentWorkspace } from "../oauth/workspace-client.ts";
import { incomingFiles, type SlackFile, slackSources } from "./incoming.ts";
import { type SharePace, slackFileSurface } from "./outgoing.ts";

/** The bot's files I/O with Slack, built once: shared files in, workspace files out. */
export interface SlackFiles {
  incoming(files: readonly SlackFile[]): IncomingFile[];
  surface(place: { channel: string; threadTs?: string }): FileSurface;
}

/**
 * `botToken` is the one workspace's; under OAuth the token of the workspace whose event is handled is used.
 * `pace` is the bot's pace for new messages (SlackOut's newMessage and followMessage): sharing files posts one.
 */
export function slackFiles(client: webApi.WebClient, logger: Logger, opts: { botToken?: string; origins: readonly string[]; pace: SharePace }): SlackFiles {
  const src = slackSources(opts.origins);
  return {
    incoming: (files) => incomingFiles(files, () => currentWorkspace()?.token ?? opts.botToken, src),
    surface: (place) => slackFileSurface(client, logger, opts.pace, place),
  };
}
