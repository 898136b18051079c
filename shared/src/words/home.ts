import { shortCommand, type Naming } from "../format/control.ts";
import { dollars } from "../format/money.ts";
import type { RoomListResponse, RoomSummary } from "../wire/home-schemas.ts";

/**
 * A person's home view (Slack's App Home) in words: what Duet is, how to
 * ask, what they used today and what is left, the models, and their rooms.
 * The bot only lays these out as blocks.
 */

export const HOME_WORDS = {
  title: "Duet, your AI pair programmer",
  intro:
    "Duet answers questions about code and runs the commands it suggests in a sandbox that belongs to the channel. Everyone in a channel shares its conversation and its sandbox.",
  howToAsk: [
    "*How to ask*",
    "• Mention `@Duet` in a channel it was invited to; it answers in the thread.",
    "• `/duet ask <question>` in any of those channels, `/duet help` for every command.",
    "• On any message: the message's ⋯ menu → *Ask Duet*, to ask about that message.",
    "• Or write to Duet here, in its Messages tab.",
  ].join("\n"),
  usageTitle: "*Your use today*",
  modelsTitle: "*Models*",
  roomsTitle: "*Your channels with Duet*",
  noRooms: "None yet: invite Duet to a channel (`/invite @Duet`) and ask it something there.",
  openChannel: "Open channel",
  /** Said in place of the rooms when Slack would not say which channels the person is in. */
  channelsUnknown: (reason: string) => `Duet could not check which channels you are in (Slack said \`${reason}\`), so none are listed here.`,
  more: (n: number) => `…and ${n} more channel${n === 1 ? "" : "s"} with Duet.`,
} as const;

const count = (n: number) => n.toLocaleString("en-US");

/** "1,234 tokens ($0.012) across this workspace's rooms", then each budget that is set, with what is left. */
export function homeUsageLines(r: RoomListResponse): string[] {
  const spent = r.you.costUsd > 0 ? ` (${dollars(r.you.costUsd)})` : "";
  const lines = [`${count(r.you.tokens)} model tokens${spent} ${r.you.where}.`];
  const { user, userUsd, room, roomUsd } = r.budgets;
  if (user) lines.push(`Your daily budget: ${count(user.limit)} tokens, ${count(user.left ?? user.limit)} left.`);
  if (userUsd) lines.push(`Your daily spending limit: ${dollars(userUsd.limit)}, ${dollars(userUsd.left ?? userUsd.limit)} left.`);
  if (room) lines.push(`Each channel may use ${count(room.limit)} tokens a day.`);
  if (roomUsd) lines.push(`Each channel may spend ${dollars(roomUsd.limit)} a day.`);
  if (user || userUsd || room || roomUsd) lines.push(`Budgets reset at 00:00 UTC.`);
  else lines.push("No daily budget is set.");
  return lines;
}

/** "`fast` (the default), `strong`": switched per channel with `/duet model NAME`. */
export function homeModelsLine(r: RoomListResponse, name: Naming): string {
  const list = r.models.choices.map((m) => `${name.command(m)}${m === r.models.default ? " (the default)" : ""}`).join(", ");
  return `${list}. Switch a channel's with ${name.duet ? name.duet("model NAME") : name.command("/duet model NAME")}.`;
}

const POLICY_WORDS: Record<RoomSummary["runPolicy"], string> = { auto: "runs commands at once", approve: "asks before each command" };

/** One room as a few lines: the channel, its model and run policy, its repository and its schedules. */
export function homeRoomLines(room: RoomSummary, name: Naming & { channel(id: string): string }): string[] {
  const lines = [`${name.channel(room.channel)} · ${name.command(room.model)} · ${POLICY_WORDS[room.runPolicy]} (${name.command(room.runPolicy)})`];
  if (room.repo) lines.push(`Repository: ${name.command(room.repo.repo)}${room.repo.branch ? ` on ${name.command(room.repo.branch)}` : ""}`);
  if (room.schedules.length) {
    const shown = room.schedules.slice(0, 3).map((s) => `${name.command(s.when)}: ${name.command(shortCommand(s.ask))}`);
    const rest = room.schedules.length - shown.length;
    lines.push(`Scheduled: ${shown.join("; ")}${rest > 0 ? `; and ${rest} more` : ""}`);
  }
  if (room.usedToday.tokens > 0) lines.push(`You today: ${count(room.usedToday.tokens)} tokens${room.usedToday.costUsd > 0 ? ` (${dollars(room.usedToday.costUsd)})` : ""}`);
  return lines;
}
