import { channelOfThread, type UsageResponse } from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import type { RollingSummary } from "../memory/rolling-summary.ts";
import type { TurnLedger } from "../storage/turn-ledger.ts";
import { budgetsView, overBudget, type DailyBudgets, type PersonToday } from "../usage/budgets.ts";
import { PersonBudget, type PersonPeer } from "../usage/person-budget.ts";
import { UsageTotals, type UsageEntry } from "../usage/usage-entries.ts";
import { usageView } from "../usage/usage-view.ts";
import { cleanAll, type RoomPeer, type RoomTree } from "./room-tree.ts";

/**
 * What a room's model use adds up to and what is left of its budgets: its own
 * turns and summaries, its thread rooms', and the person's across their
 * workspace (counted in the person's own object).
 */
export class RoomUsage {
  /** One person's use across their workspace's rooms; counts only where a person's budget is set. */
  readonly people: PersonBudget;

  constructor(
    private readonly roomId: string,
    private readonly config: WorkerConfig,
    private readonly parts: { ledger: TurnLedger; summary: RollingSummary; tree: RoomTree; peer: (roomId: string) => RoomPeer },
    person: (key: string) => PersonPeer,
  ) {
    this.people = new PersonBudget(roomId, config.DUET_USER_DAILY_TOKENS !== undefined || config.DUET_USER_DAILY_USD !== undefined, person);
  }

  /** This room's own usage entries (what a channel room adds up from its threads). */
  entries(): UsageEntry[] {
    return [...this.parts.ledger.usageTotals().list(), ...this.parts.summary.usage()];
  }

  /**
   * Model usage over the last 7 UTC days, this room's and its thread rooms'
   * together, and the budgets (what `userId` has left, when given). A thread
   * room that cannot be asked is left out and logged.
   */
  async view(userId?: string): Promise<UsageResponse> {
    const entries = [...this.entries()];
    const threads = this.parts.tree.children().filter((child) => channelOfThread(child) === this.roomId);
    const failed = await cleanAll(threads, async (child) => {
      entries.push(...(await this.parts.peer(child).usageEntries()));
      return [];
    });
    if (failed.size) console.error("thread rooms' usage could not be read", [...failed.keys()]);
    return usageView(entries, this.budgets(), await this.personToday(userId));
  }

  /** Why `userId` may not start a turn here now (a budget spent), or nothing. */
  async overBudget(userId: string | null | undefined) {
    return overBudget(this.budgets(), () => new UsageTotals().addAll(this.entries()), await this.personToday(userId));
  }

  /** What `userId` used today toward their budget, in every room it counts across; null without a budget or a person. */
  async personToday(userId: string | null | undefined): Promise<PersonToday | null> {
    const used = await this.people.usedToday(userId);
    return used === null ? null : { used: used.tokens, costMicros: used.costMicros, where: this.people.where };
  }

  /** The budgets as the home view shows them for `person`. */
  budgetsFor(person: PersonToday | null) {
    return budgetsView(this.budgets(), new UsageTotals(), person);
  }

  private budgets(): DailyBudgets {
    const c = this.config;
    return { room: c.DUET_ROOM_DAILY_TOKENS, user: c.DUET_USER_DAILY_TOKENS, roomUsd: c.DUET_ROOM_DAILY_USD, userUsd: c.DUET_USER_DAILY_USD };
  }
}
