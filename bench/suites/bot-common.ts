import { setTimeout as sleep } from "node:timers/promises";
import { CHANNEL_MESSAGE_INTERVAL_MS } from "@duet/shared";
import type { BotProcess } from "../bots/process.ts";
import { single, type Result } from "../stats.ts";

/** What the bot suites share: the two kinds of turn, their sizes, and the memory and connection figures. */

/** A turn with an instant model and no command: the bot's and the Worker's own path. */
export const REPLY_ONLY = "SAY: ok";
/** The same with one command through the instant fake executor (no shell started). */
export const ONE_COMMAND = "SAY: ok <run>true</run>";

/** How many channels a suite's turns take in turn (PacedChannels). */
export const PACED_CHANNELS = 40;
/** Past the pace's interval before a channel's next turn: the bot counts it from when its post's answer came back, a little after the suite saw the post. */
const PACE_MARGIN_MS = 50;

/**
 * The channels a suite's timed turns take in turn, each sent only once the
 * bots' channel pace (one new message a second per channel) would let its
 * answer go at once, so a figure is the bot's own overhead and not the pace's
 * wait (which the replicas group measures in one busy channel). The wait is
 * before a turn's clock starts. Fixed channels, however fast the turns: a
 * channel count alone (40 turns of 15 ms fit in a second) left the figures
 * measuring the pace on a fast machine.
 */
export class PacedChannels {
  private readonly freeAt = new Map<string, number>();
  private turn = 0;

  constructor(readonly names: string[]) {}

  /** The rota's next channel, once its pace has passed. */
  async next(): Promise<string> {
    const name = this.names[this.turn++ % this.names.length];
    const left = (this.freeAt.get(name) ?? 0) - performance.now();
    if (left > 0) await sleep(left);
    return name;
  }

  /** `name`'s turn is over (its answer posted and answered): its next new message is a pace's interval away. */
  over(name: string): void {
    this.freeAt.set(name, performance.now() + CHANNEL_MESSAGE_INTERVAL_MS + PACE_MARGIN_MS);
  }
}

export interface BotBenchOptions {
  /** Turns run first and thrown away (JIT, connection set-up, room creation). */
  warmup: number;
  /** Timed turns, one at a time, alternating reply-only and one-command. */
  samples: number;
  /** Timed slash commands (Slack), one at a time. */
  slashSamples: number;
  /** Total turns before the "after" memory figure. */
  turns: number;
  /** Pause before each memory reading, so the figure is not caught mid-turn. */
  settleMs: number;
  /**
   * Least time from one warm-up or timed turn's start to the next one's. A bot under a
   * platform's request limit (discord.js: 50 requests/s) otherwise makes every ~25th turn
   * wait for the limit's next second, which is the benchmark's pace, not the turn's cost.
   */
  turnGapMs?: number;
}

/** Waits out what is left of `gapMs` since `startedAt` (nothing without a gap). */
export async function pace(startedAt: number, gapMs = 0): Promise<void> {
  const left = startedAt + gapMs - performance.now();
  if (left > 0) await sleep(left);
}

/**
 * The bot's setting for the timed turns, memory and connection rows: whole answers,
 * one reply when the turn is over, so each turn is Duet's own path and not the wait
 * for a live answer's next update slot (the live rows are first-token.ts's).
 */
export const WHOLE_ANSWERS = { DUET_STREAMING: "off" } as const;
const WHOLE_NOTE = "whole answers (DUET_STREAMING=off)";

/** Adds the bots' answer setting to each row's note. */
export const wholeAnswerRows = (rows: Result[]): Result[] => rows.map((r) => ({ ...r, note: r.note ? `${r.note}; ${WHOLE_NOTE}` : WHOLE_NOTE }));

export interface Idle {
  rss: number;
  heapMiB: number;
  externalMiB: number;
}

const MiB = 2 ** 20;

/** RSS (from /proc, read first) and the heap retained after a GC, once the bot has settled. */
export async function memoryNow(bot: BotProcess, settleMs: number): Promise<Idle & { peak: number; requests: number; connections: number }> {
  await sleep(settleMs);
  const rss = bot.rss();
  const peak = bot.rss(true);
  const s = await bot.stats();
  return { rss, peak, heapMiB: s.heapAfterGcBytes / MiB, externalMiB: s.externalBytes / MiB, requests: s.workerRequests, connections: s.workerConnections };
}

/** `how`: how the bot was run, for the idle row's note ("tsx loader included", "built, plain node"). */
export async function memoryResults(label: string, bot: BotProcess, idle: Idle, turns: number, settleMs: number, how: string): Promise<Result[]> {
  const after = await memoryNow(bot, settleMs);
  // RSS also holds what V8 and malloc keep but do not return to the system; the heap after GC is what the bot retains.
  const heap = (m: Idle) => `heap after GC ${m.heapMiB.toFixed(1)} MiB, external ${m.externalMiB.toFixed(1)} MiB`;
  return [
    single(`${label}: bot RSS idle`, "MiB", idle.rss, 1, `VmRSS after start-up, before any turn (${how}); ${heap(idle)}`),
    single(`${label}: bot RSS after ${turns} turns`, "MiB", after.rss, 1, `peak ${after.peak.toFixed(1)} MiB; ${heap(after)}`),
    single(`${label}: Worker connections opened`, "conns", after.connections, after.requests, `for ${after.requests} Worker requests (keep-alive check)`),
  ];
}
