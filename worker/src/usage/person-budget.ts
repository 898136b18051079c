import { BOT_PLATFORMS } from "@duet/shared";
import { recentDays, utcDay, type TurnUsage } from "./usage-entries.ts";

/** A person's usage object (usage/person-object.ts), as the room calls it over RPC. */
export interface PersonPeer {
  usedOn(day: string): Promise<PersonDay>;
  add(day: string, used: PersonDay, oldest: string): Promise<PersonDay>;
}

/** A person's day: tokens in and out, and what the priced ones cost in micro-dollars. */
export interface PersonDay {
  tokens: number;
  costMicros: number;
}

/**
 * Where one person's daily budget is counted: every room of a Slack team or
 * Discord server (`slack-T123`), so a person is one person across its
 * channels and threads; a room of no workspace (a CLI room) counts alone.
 */
export function personScope(roomId: string): { scope: string; where: string } {
  const parts = roomId.split("-");
  if (parts.length >= 3 && parts.every(Boolean) && (BOT_PLATFORMS as readonly string[]).includes(parts[0]!)) {
    return { scope: parts.slice(0, 2).join("-"), where: "across this workspace's rooms" };
  }
  return { scope: roomId, where: "in this room" };
}

/**
 * One room's view of its people's daily budgets (tokens, dollars or both):
 * asked before a turn starts (one RPC, no row), told once per answered turn
 * that the provider reported figures for (one RPC, one row in the person's
 * object). Without a per-person budget it asks and writes nothing.
 */
export class PersonBudget {
  readonly where: string;
  private readonly scope: string;

  constructor(
    roomId: string,
    private readonly limited: boolean,
    private readonly peer: (key: string) => PersonPeer,
  ) {
    ({ scope: this.scope, where: this.where } = personScope(roomId));
  }

  /** What `userId` used today in every room of the scope; null without a budget or a person. */
  async usedToday(userId: string | null | undefined, now = Date.now()): Promise<PersonDay | null> {
    if (!this.limited || !userId) return null;
    return this.peer(this.key(userId)).usedOn(utcDay(now));
  }

  /** A turn was answered: its tokens and cost count toward the person's day (none when the provider reported none: unknown is not zero). */
  async counted(userId: string | null, usage: TurnUsage | undefined, at: number): Promise<void> {
    if (!this.limited || !userId || !usage || usage.inputTokens === null || usage.outputTokens === null) return;
    const tokens = usage.inputTokens + usage.outputTokens;
    if (tokens <= 0) return;
    await this.peer(this.key(userId)).add(utcDay(at), { tokens, costMicros: usage.costMicros ?? 0 }, recentDays(at).at(-1)!);
  }

  private key(userId: string): string {
    return JSON.stringify([this.scope, userId]);
  }
}
