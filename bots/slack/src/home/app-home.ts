import { homeListing, type FlowDeps } from "@duet/shared";
import type { App, Logger, webApi } from "@slack/bolt";
import { z } from "zod";
import { slackErrorCode, withRetryAfter } from "../slack-api.ts";
import { HOME_ROOMS_SHOWN, homeView, noticeView, OPEN_CHANNEL_ACTION_ID, type HomeView } from "./home-view.ts";

/**
 * The App Home tab: when a person opens it, Duet publishes their view (what
 * Duet is, how to ask, their use today, the models, and the channels they are
 * in where Duet has a room). Opening it again draws it again: a publish
 * replaces the view, so a repeated event does no harm and needs no claim.
 */

export interface HomeDeps {
  flow: FlowDeps;
  logger: Logger;
}

const homeOpenedSchema = z.object({ type: z.literal("app_home_opened"), user: z.string().regex(/^[UW][A-Z0-9]+$/), tab: z.string().optional() });
const teamSchema = z.object({ team_id: z.string().min(1) });

/** Pages of channels asked for (1,000 a page, Slack's most): a person in more sees the first 5,000. */
const CHANNEL_PAGES = 5;

export function registerAppHome(app: App, deps: HomeDeps, track: (p: Promise<void>) => Promise<void>): void {
  app.event("app_home_opened", async ({ event, body, client }) => {
    await track(openHome(event, body, client, deps));
  });
  // The Open channel button is a link; Slack still sends its click, which needs only an ack.
  app.action(OPEN_CHANNEL_ACTION_ID, async ({ ack }) => {
    await ack();
  });
}

async function openHome(rawEvent: unknown, rawBody: unknown, client: webApi.WebClient, deps: HomeDeps): Promise<void> {
  const event = homeOpenedSchema.safeParse(rawEvent);
  const team = teamSchema.safeParse(rawBody);
  if (!event.success || !team.success) return deps.logger.warn("Ignored a malformed app_home_opened event");
  // The Messages tab opening is not the Home tab.
  if (event.data.tab && event.data.tab !== "home") return;
  const userId = event.data.user;
  const teamId = team.data.team_id;
  const channels = await channelsOf(client, userId, deps.logger);
  const found = await homeListing(deps.flow, { platform: "slack", workspace: teamId, userId, channels: "error" in channels ? [] : channels.ids, limit: HOME_ROOMS_SHOWN });
  const view: HomeView = "error" in found ? noticeView(found.error) : homeView({ teamId, listing: found.listing, ...("error" in channels ? { channelsUnknown: channels.error } : {}) });
  try {
    await withRetryAfter(() => client.views.publish({ user_id: userId, view }), deps.logger, "views.publish");
  } catch (err) {
    deps.logger.warn(`views.publish for ${teamId}/${userId} failed: ${slackErrorCode(err)}`);
  }
}

/** The channels `user` is in (public and private, not archived), or Slack's error (a missing scope, a refusal). */
async function channelsOf(client: webApi.WebClient, user: string, logger: Logger): Promise<{ ids: string[] } | { error: string }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  try {
    for (let page = 0; page < CHANNEL_PAGES; page++) {
      const res = await withRetryAfter(
        () => client.users.conversations({ user, types: "public_channel,private_channel", exclude_archived: true, limit: 1000, ...(cursor ? { cursor } : {}) }),
        logger,
        "users.conversations",
      );
      for (const c of res.channels ?? []) if (c.id) ids.push(c.id);
      cursor = res.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    return { ids };
  } catch (err) {
    const code = slackErrorCode(err);
    logger.warn(`users.conversations for ${user} failed: ${code}`);
    return { error: code };
  }
}
