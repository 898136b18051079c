import { fileURLToPath } from "node:url";
import { DEFAULT_SUMMARY_TOKENS } from "@duet/shared";
import { isSummaryCall } from "../../test/fakes/model.ts";
import { sendTurn as send, startBenchStack, type BenchStack } from "../stack.ts";
import { median, single, summarize, type Result } from "../stats.ts";

/**
 * A room that remembers, measured from outside as a client sees it:
 *
 * - Rows and bytes written per turn with the memory on (every shown turn kept
 *   for recall, one chunk row per 25 turns, the rolling summary's row when a
 *   turn began one), over 50 turns at a full history:
 *   the turns that write no chunk (the ledger's own statements, which are
 *   main's unchanged), amortised over all 50, and the seed's design (one Agent
 *   rewriting its whole message list) beside them in the same run.
 * - Recall time at 2,000 and 20,000 messages: a question whose words recall
 *   searches for (FTS5 over the chunks, then the turns ranked) beside one made
 *   of common words only (no search), asked alternately in the same room; the
 *   difference is what recall adds to a turn.
 * - Tokens recalled into a prompt (its recalled block, 4 characters a token)
 *   as the fake model received them.
 */

const SEED_CONFIG = fileURLToPath(new URL("../seed-design/wrangler.toml", import.meta.url));
const QUESTION = "how do I list the ten largest files here, without node_modules, with human readable sizes?";
const RECALL_LABEL = "[earlier in this room, recalled";
/** Turns in flight while a room is filled: the room answers them in order, this keeps the model's round trip out of the way. */
const FILL_CONCURRENCY = 8;
/** Twenty, so that at 100 asks each is asked 5 times: an earlier ask of the same question is itself a close match, and dozens of them would crowd the fact out. */
const FACTS = [
  ["staging runs on port 8443", "which port does staging use?"],
  ["the flaky test is test_upload", "which test is flaky again?"],
  ["database backups run nightly at 02:00 UTC", "when do the database backups run?"],
  ["the redis cache TTL is 90 seconds", "what is the redis cache TTL?"],
  ["make test needs --jobs 2", "what flags does make test need?"],
  ["the deploy bot is called shipit", "what is the deploy bot called?"],
  ["our CI uses Buildkite", "which CI service do we use?"],
  ["the frontend lives in packages/web", "where does the frontend live?"],
  ["the on-call rotation changes on Mondays", "when does the on-call rotation change?"],
  ["release branches are named release/YYYY-MM", "how are release branches named?"],
  ["the grafana dashboard is called golden-signals", "what is the grafana dashboard called?"],
  ["postgres max_connections is 400", "what is postgres max_connections set to?"],
  ["the kafka topic for invoices is billing.invoices.v2", "which kafka topic carries invoices?"],
  ["feature flags live in LaunchDarkly", "where do feature flags live?"],
  ["the VPN gateway is vpn.corp.internal", "what is the VPN gateway address?"],
  ["terraform state sits in the s3 bucket tfstate-prod", "where is the terraform state kept?"],
  ["the mobile app targets iOS 16 and up", "which iOS version does the mobile app target?"],
  ["log retention in elasticsearch is 14 days", "how long is log retention in elasticsearch?"],
  ["the sentry project is named web-prod", "what is the sentry project named?"],
  ["docker images are pushed to ghcr.io/acme", "where are docker images pushed?"],
] as const;
/** No word recall searches for: every one is a common word it leaves out. */
const NO_TERMS = "what is it? can you say?";

export interface RecallOptions {
  /** Room sizes, in messages, recall is timed at. */
  sizes: number[];
  /** Asks timed per kind (recall, none) at each size. */
  samples: number;
}

export const RECALL_DEFAULTS: RecallOptions = { sizes: [2_000, 20_000], samples: 100 };

/**
 * DUET_BENCH_RECALL=`<sizes>:<samples>` (e.g. `200,2000:20`) for a small run;
 * unset, the defaults. Sizes are even numbers of messages (two a turn).
 */
export function recallOptions(raw: string | undefined): RecallOptions {
  if (!raw) return RECALL_DEFAULTS;
  const m = /^(\d+(?:,\d+)*):(\d+)$/.exec(raw.trim());
  const sizes = m ? m[1].split(",").map(Number) : [];
  if (!m || sizes.some((n) => n < 2 || n % 2) || Number(m[2]) < 1) throw new Error(`DUET_BENCH_RECALL must look like 2000,20000:100 (even sizes, at least 1 sample), not ${raw}`);
  return { sizes, samples: Number(m[2]) };
}

interface RoomStats {
  rowsWrittenSinceStart: number;
  bytesBoundSinceStart: number;
  /** The rolling summary: being written now, and when the kept one was (0: none; absent in the seed's design). */
  summaryWriting?: boolean;
  summaryAt?: number;
}

async function stats(stack: BenchStack, room: string): Promise<RoomStats> {
  const res = await fetch(`${stack.workerUrl}/api/rooms/${room}/stats`, { headers: { authorization: `Bearer ${stack.token}` } });
  if (!res.ok) throw new Error(`stats answered HTTP ${res.status}`);
  return (await res.json()) as RoomStats;
}

/** A turn's writes, and whether the rolling summary was written after it (its row counted with the turn). */
interface TurnCost {
  rows: number;
  bytes: number;
  summary: boolean;
}

/**
 * Rows and bytes per turn over `turns` turns of `room` after it was filled to a
 * full history. A summary begun after a turn's answer is waited for (the
 * room's stats say when one is being written), so its row counts with the turn
 * that began it; each stats request's own writes are left out.
 */
async function costPerTurn(stack: BenchStack, room: string, turns: number): Promise<TurnCost[]> {
  for (let i = 0; i < 26; i++) await send(stack, room, QUESTION);
  const costs: TurnCost[] = [];
  // The stats request's own writes (the SDK's bookkeeping), left out of each turn's figure.
  const a = await stats(stack, room);
  const overhead = (await stats(stack, room)).rowsWrittenSinceStart - a.rowsWrittenSinceStart;
  let s0 = await settledStats(stack, room);
  for (let i = 0; i < turns; i++) {
    await send(stack, room, QUESTION);
    const s1 = await settledStats(stack, room);
    costs.push({ rows: s1.stats.rowsWrittenSinceStart - s0.stats.rowsWrittenSinceStart - s1.reads * overhead, bytes: (s1.stats.bytesBoundSinceStart - s0.stats.bytesBoundSinceStart) / 2, summary: (s1.stats.summaryAt ?? 0) !== (s0.stats.summaryAt ?? 0) });
    s0 = s1;
  }
  return costs;
}

/** The room's stats once no summary is being written, and how many stats requests that took. */
async function settledStats(stack: BenchStack, room: string): Promise<{ stats: RoomStats; reads: number }> {
  for (let reads = 1; ; reads++) {
    const s = await stats(stack, room);
    if (!s.summaryWriting) return { stats: s, reads };
    await new Promise((r) => setTimeout(r, 5));
  }
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

/** Fills `room` with `messages` messages (two a turn), the facts planted in its first tenth. */
async function fill(stack: BenchStack, room: string, messages: number): Promise<void> {
  const turns = messages / 2;
  // The facts early (within the first tenth, or one turn apart in a small room), so they are far older than the model's window.
  const planted = new Map<number, string>(FACTS.map(([said], j) => [j * Math.max(1, Math.floor(turns / 10 / FACTS.length)), said]));
  const said = (i: number) => (planted.has(i) ? `SAY: noted: ${planted.get(i)}` : `SAY: ok filler ${i}, chatting about lunch plans, the weather and the test suite`);
  let next = 0;
  await Promise.all(
    Array.from({ length: FILL_CONCURRENCY }, async () => {
      while (next < turns) await send(stack, room, said(next++));
    }),
  );
}

const tokens = (chars: number) => Math.ceil(chars / 4);

export async function recallSuite(opts: RecallOptions = RECALL_DEFAULTS): Promise<Result[]> {
  const results: Result[] = [];
  const tag = Date.now().toString(36);
  const duet = await startBenchStack({ instantExecutor: true });
  try {
    const cost = await costPerTurn(duet, `cli-bench-recall-cost-${tag}`, 50);
    const rows = cost.map((c) => c.rows);
    const bytes = cost.map((c) => c.bytes);
    const plain = rows.filter((r) => r === Math.min(...rows));
    const summarised = cost.filter((c) => c.summary);
    const others = cost.filter((c) => !c.summary);
    results.push(
      summarize("recall: Duet, memory on, SQLite rows written per turn, turns that archive nothing", "rows", plain, "history 50; the ledger's statements, main's unchanged"),
      summarize("recall: Duet, memory on, SQLite rows written per turn, amortised", "rows", [mean(rows)], `mean over ${cost.length} turns at history 50, one chunk row per 25 turns and the summaries' rows included`),
      summarize("recall: Duet, memory on, bytes bound per message", "bytes", bytes, `history 50; a chunk's text (25 turns) bound once per 25 turns, in the p99`),
      summarize("recall: Duet, memory on, bytes bound per message, amortised", "bytes", [mean(bytes)], `mean over ${cost.length} turns, chunks and summaries included`),
      single("recall: Duet, memory on, turns whose answer began a rolling summary", "turns", summarised.length, cost.length, `of ${cost.length} turns at DUET_SUMMARY_TOKENS ${DEFAULT_SUMMARY_TOKENS} (the default), ${QUESTION.length}-char questions echoed`),
    );
    if (summarised.length) {
      // Beside the median turn that began none (chunk rows and their text are in the tail, not the median).
      const base = { rows: median(others.map((o) => o.rows)), bytes: median(others.map((o) => o.bytes)) };
      results.push(
        summarize("recall: Duet, memory on, SQLite rows written by a rolling summary", "rows", summarised.map((c) => c.rows - base.rows), "a turn that began one, less the median turn that did not: its row (and the table, made by the first)"),
        summarize("recall: Duet, memory on, bytes bound by a rolling summary", "bytes", summarised.map((c) => 2 * (c.bytes - base.bytes)), "the same difference: the summary's text and its usage, as bound"),
      );
    }
    for (const size of opts.sizes) {
      const room = `cli-bench-recall-${size}-${tag}`;
      await fill(duet, room, size);
      const withRecall: number[] = [];
      const without: number[] = [];
      duet.model.reset();
      for (let i = 0; i < opts.samples; i++) {
        withRecall.push(await send(duet, room, FACTS[i % FACTS.length][1]));
        without.push(await send(duet, room, NO_TERMS));
      }
      // The asks' calls alone, in the order asked: a rolling summary the room began meanwhile is its own call.
      const asks = duet.model.calls.filter((c) => !isSummaryCall(c));
      const blocks = asks.map((c) => c.messages.find((m) => m.role === "user" && m.content.startsWith(RECALL_LABEL))?.content.length ?? 0);
      const recalled = blocks.filter((_, i) => i % 2 === 0);
      const found = asks.filter((c, i) => i % 2 === 0 && c.messages.some((m) => m.content.startsWith(RECALL_LABEL) && m.content.includes(FACTS[(i / 2) % FACTS.length][0]))).length;
      results.push(
        summarize(`recall: turn latency at ${size} messages, a question recall searches for`, "ms", withRecall, `${opts.samples} asks; the planted fact recalled in ${found}`),
        summarize(`recall: turn latency at ${size} messages, common words only (no search)`, "ms", without, "asked alternately with the row above, same room"),
        summarize(`recall: tokens added per prompt at ${size} messages`, "tokens", recalled.map(tokens), "the recalled block's characters ÷ 4 (DUET_RECALL_TOKENS 800 by default)"),
      );
    }
  } finally {
    await duet.stop();
  }
  const seed = await startBenchStack({ executor: "none", config: SEED_CONFIG });
  try {
    const cost = await costPerTurn(seed, `cli-bench-recall-seed-${tag}`, 50);
    results.push(
      summarize("recall: seed design, SQLite rows written per turn", "rows", cost.map((c) => c.rows), "history 50; the whole message list rewritten per message"),
      summarize("recall: seed design, bytes bound per message", "bytes", cost.map((c) => c.bytes), "history 50"),
    );
  } finally {
    await seed.stop();
  }
  return results;
}
