import { HOME_WORDS, homeModelsLine, homeRoomLines, homeUsageLines, type RoomListResponse } from "@duet/shared";
import { NAMING } from "../control/render-control.ts";
import type { Block } from "../slack-api.ts";

/**
 * A person's App Home as Slack blocks, from the Worker's listing of their
 * rooms. Slack refuses a view past 100 blocks or a text past 3,000
 * characters, so the rooms shown are capped (the rest are "and N more") and
 * every text is cut to fit.
 */

/** Slack's limits on a Home tab view. */
export const VIEW_MAX_BLOCKS = 100;
export const TEXT_MAX_CHARS = 3000;
/** Rooms shown with their settings: one block each, well under the 100 with the blocks around them. */
export const HOME_ROOMS_SHOWN = 20;
/** The button that opens a room's channel (a link: Slack still sends the click, which is acknowledged). */
export const OPEN_CHANNEL_ACTION_ID = "duet_home_open_channel";

export interface HomeView {
  type: "home";
  blocks: Block[];
}

/** Why the rooms are not listed, when they are not: Slack would not say which channels the person is in. */
export interface HomeInput {
  teamId: string;
  listing: RoomListResponse;
  channelsUnknown?: string;
}

const fit = (text: string) => (text.length > TEXT_MAX_CHARS ? `${text.slice(0, TEXT_MAX_CHARS - 1)}…` : text);
const section = (text: string) => ({ type: "section" as const, text: { type: "mrkdwn" as const, text: fit(text) } });
const channelMention = (id: string) => `<#${id.replace(/[^A-Za-z0-9]/g, "")}>`;

/** The Home view for one person. */
export function homeView(input: HomeInput): HomeView {
  const { listing } = input;
  const naming = { ...NAMING, channel: channelMention };
  const blocks: Block[] = [
    { type: "header", text: { type: "plain_text", text: HOME_WORDS.title } },
    section(HOME_WORDS.intro),
    section(HOME_WORDS.howToAsk),
    { type: "divider" },
    section([HOME_WORDS.usageTitle, ...homeUsageLines(listing)].join("\n")),
    section(`${HOME_WORDS.modelsTitle}\n${homeModelsLine(listing, NAMING)}`),
    { type: "divider" },
    section(HOME_WORDS.roomsTitle),
  ];
  if (input.channelsUnknown) {
    blocks.push(section(HOME_WORDS.channelsUnknown(input.channelsUnknown)));
    return { type: "home", blocks };
  }
  if (!listing.rooms.length && !listing.more) blocks.push(section(HOME_WORDS.noRooms));
  // One block per room leaves this many for the rest; the Worker was asked for no more than HOME_ROOMS_SHOWN.
  const room = VIEW_MAX_BLOCKS - blocks.length - 1;
  const shown = listing.rooms.slice(0, room);
  for (const r of shown) {
    blocks.push({
      ...section(homeRoomLines(r, naming).join("\n")),
      accessory: {
        type: "button",
        action_id: OPEN_CHANNEL_ACTION_ID,
        text: { type: "plain_text", text: HOME_WORDS.openChannel },
        url: `https://slack.com/app_redirect?team=${encodeURIComponent(input.teamId)}&channel=${encodeURIComponent(r.channel)}`,
      },
    });
  }
  const more = listing.more + listing.rooms.length - shown.length;
  if (more > 0) blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: HOME_WORDS.more(more) }] });
  return { type: "home", blocks };
}

/** The view when the Worker could not list the person's rooms (unreachable, refusing): one line saying so, nothing else. */
export function noticeView(text: string): HomeView {
  return { type: "home", blocks: [{ type: "header", text: { type: "plain_text", text: HOME_WORDS.title } }, section(text)] };
}
