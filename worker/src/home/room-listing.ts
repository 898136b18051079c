import { BOT_PLATFORMS, type Budget, type RoomListRequest, type RoomListResponse, type RoomSummary, type UsageResponse } from "@duet/shared";
import type { PersonToday } from "../usage/budgets.ts";
import { nextUtcMidnight, utcDay } from "../usage/usage-entries.ts";

/**
 * A workspace's rooms as its home view lists them. The index is the
 * workspace room's own table of the rooms under it (room-tree.ts): a channel
 * room registers there, one row, the first time it is used or configured, so
 * listing a workspace reads one table and then asks only the rooms it shows
 * (at most `limit`, in parallel) for their settings; the rooms past that are
 * only counted. Nothing here lives in a bot, so every replica draws the same view.
 */

/** Rooms listed with their settings when the caller names no limit: what a home view has room for. */
export const DEFAULT_LISTED = 20;

/** Whether `roomId` is a workspace room (`slack-T123`), the only kind that lists rooms. */
export function isWorkspaceRoom(roomId: string): boolean {
  const parts = roomId.split("-");
  return parts.length === 2 && parts.every(Boolean) && (BOT_PLATFORMS as readonly string[]).includes(parts[0]!);
}

/** What the listing needs of the workspace room and of the rooms under it. */
export interface ListingDeps {
  /** The rooms registered under the workspace room (channel rooms), by id. */
  children(): string[];
  /** One room's settings and the person's use there today (an RPC to that room). */
  summary(roomId: string, userId: string): Promise<RoomSummary>;
  models: { choices: string[]; default: string };
  /** The person's use today across the workspace, where a per-person budget counts it; null otherwise. */
  personToday(userId: string): Promise<PersonToday | null>;
  /** The budgets as the usage route shows them (the person's with what is left). */
  budgets(person: PersonToday | null): { room?: Budget; user?: Budget; roomUsd?: Budget; userUsd?: Budget };
  log(line: string, err?: unknown): void;
  now?: number;
}

/** Lists the channel rooms of `req.channels` (all when absent), the first `limit` by id with their settings. */
export async function listRooms(req: RoomListRequest, deps: ListingDeps): Promise<RoomListResponse> {
  const now = deps.now ?? Date.now();
  const wanted = req.channels ? new Set(req.channels) : null;
  const matched = deps.children().filter((id) => id.split("-").length === 3 && (!wanted || wanted.has(id.split("-")[2]!)));
  const shown = matched.slice(0, req.limit ?? DEFAULT_LISTED);
  const answers = await Promise.allSettled(shown.map((id) => deps.summary(id, req.userId)));
  const rooms: RoomSummary[] = [];
  answers.forEach((a, i) => {
    if (a.status === "fulfilled") rooms.push(a.value);
    else deps.log(`room ${shown[i]} could not be listed`, a.reason);
  });
  const person = await deps.personToday(req.userId);
  const listed = rooms.reduce((sum, r) => ({ tokens: sum.tokens + r.usedToday.tokens, costUsd: sum.costUsd + r.usedToday.costUsd }), { tokens: 0, costUsd: 0 });
  const you = person ? { tokens: person.used, costUsd: person.costMicros / 1e6, where: person.where } : { ...listed, where: "in the rooms listed" };
  const all = deps.budgets(person);
  // A room's budget is its own: only the limit says anything for the workspace.
  const budgets = {
    ...(all.user ? { user: all.user } : {}),
    ...(all.userUsd ? { userUsd: all.userUsd } : {}),
    ...(all.room ? { room: { limit: all.room.limit } } : {}),
    ...(all.roomUsd ? { roomUsd: { limit: all.roomUsd.limit } } : {}),
  };
  return { rooms, more: matched.length - rooms.length, models: deps.models, you, budgets, resetsAt: nextUtcMidnight(now) };
}

/** A room's settings, and what `userId` used there today (from its usage answer, its threads' included). */
export function roomSummary(
  roomId: string,
  settings: { runPolicy: RoomSummary["runPolicy"]; model: string; repo: RoomSummary["repo"]; schedules: { id: string; when: string; ask: string; nextRunAt: number }[] },
  usage: UsageResponse,
  userId: string,
  now = Date.now(),
): RoomSummary {
  const today = usage.days.find((d) => d.date === utcDay(now));
  let tokens = 0;
  let costUsd = 0;
  for (const row of today?.rows ?? []) {
    if (row.userId !== userId) continue;
    tokens += (row.inputTokens ?? 0) + (row.outputTokens ?? 0);
    costUsd += row.costUsd ?? 0;
  }
  return {
    roomId,
    channel: roomId.split("-").at(-1)!,
    runPolicy: settings.runPolicy,
    model: settings.model,
    repo: settings.repo,
    schedules: settings.schedules.map((s) => ({ id: s.id, when: s.when, ask: s.ask, nextRunAt: s.nextRunAt })),
    usedToday: { tokens, costUsd },
  };
}
