import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BOT_ENTRIES, bundle } from "../../scripts/build/bundle.ts";
import { startSeparateExecutorStack } from "../executor-process.ts";
import { summarize, type Result } from "../stats.ts";
import { startSlackBotFiles, type BotFileFigures } from "./files-bot.ts";

/**
 * A 20 MiB file in and out of a room's workspace through the Worker (PUT and
 * GET /api/rooms/:roomId/files, streamed through workerd to the bubblewrap
 * executor) and through the built Slack bot, beside the same bytes put to and
 * read from the executor's own files API directly: MB/s each way and each
 * path's ratio to the direct one. The executor runs in its own process (as in
 * `pnpm dev` and production), so the direct figure does not share an event loop
 * with the bench. Each round times every path once, one after another, and its
 * ratios divide by that round's direct figure; the rows give the median and p99
 * over the rounds (DUET_BENCH_FILES_ROUNDS, default 5). The bytes are checked on
 * the way back.
 */

export const FILE_BYTES = 20 * 1024 * 1024;
/** Pieces the upload is sent in: a client streaming from disk or from a chat platform. */
const PIECE_BYTES = 256 * 1024;

/** `bytes` as a stream of PIECE_BYTES pieces, made as they are asked for. */
export function pieces(bytes: Buffer): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.subarray(at, (at += PIECE_BYTES)));
    },
  });
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

const mbps = (ms: number) => FILE_BYTES / (1024 * 1024) / (ms / 1000);

/** The most the bot's RSS may grow while it moves the file: it streams, holding a few pieces, never the file. */
export const BOT_GROWTH_TARGET_MIB = 16;

/** Rounds of every path; `DUET_BENCH_FILES_ROUNDS` sets another count. */
const ROUNDS = Number(process.env.DUET_BENCH_FILES_ROUNDS) || 5;

interface Round {
  workerIn: number;
  workerOut: number;
  directIn: number;
  directOut: number;
  bot: BotFileFigures;
}

export async function filesSuite(): Promise<Result[]> {
  const builtDir = mkdtempSync(join(tmpdir(), "duet-bench-files-"));
  // Built before anything is timed, as `pnpm build` builds the image's bots.
  await bundle(builtDir, { ...BOT_ENTRIES, probe: "bench/bots/probe.ts" });
  const started = await startSeparateExecutorStack({ DUET_FILE_MAX_BYTES: String(32 * 1024 * 1024) });
  try {
    const { stack, executor } = started;
    const bytes = randomBytes(FILE_BYTES);
    const sha = createHash("sha256").update(bytes).digest("hex");
    const direct = (path: string) => `${executor.url}/api/sessions/sandbox-cli-bench-files-direct/files/${path}`;
    // Both paths warmed once (the Worker's isolate, the workspaces), so neither figure carries a start-up.
    await stack.client.putFile("cli-bench-files", "warm.txt", new TextEncoder().encode("warm"));
    const auth = { authorization: `Bearer ${executor.token}` };
    await fetch(direct("warm.txt"), { method: "PUT", headers: auth, body: "warm" }).then((r) => r.text());
    const bot = await startSlackBotFiles(stack, builtDir);
    const rounds: Round[] = [];
    try {
      for (let i = 0; i < ROUNDS; i++) {
        const name = `big-${i}.bin`;
        const workerIn = await timed(() => stack.client.putFile("cli-bench-files", name, pieces(bytes)));
        const workerOut = await timed(async () => Buffer.from(await new Response((await stack.client.getFile("cli-bench-files", name)).body).arrayBuffer()));
        const directIn = await timed(async () => (await fetch(direct(name), { method: "PUT", headers: auth, body: pieces(bytes), duplex: "half" } as RequestInit)).json());
        const directOut = await timed(async () => Buffer.from(await (await fetch(direct(name), { headers: auth })).arrayBuffer()));
        for (const [what, ok] of [
          ["worker in", workerIn.value.sha256 === sha],
          ["worker out", workerOut.value.equals(bytes)],
          ["direct in", (directIn.value as { sha256: string }).sha256 === sha],
          ["direct out", directOut.value.equals(bytes)],
        ] as const) {
          if (!ok) throw new Error(`files: the ${what} bytes differ from what was sent`);
        }
        rounds.push({ workerIn: mbps(workerIn.ms), workerOut: mbps(workerOut.ms), directIn: mbps(directIn.ms), directOut: mbps(directOut.ms), bot: await bot.round(name, bytes, sha) });
      }
    } finally {
      await bot.stop();
    }
    const each = (f: (r: Round) => number) => rounds.map(f);
    const note = `20 MiB streamed in 256 KiB pieces; ${ROUNDS} rounds, executor in its own process`;
    const botNote = `built Slack bot (HTTP mode), fake Slack, instant model; ${ROUNDS} rounds`;
    const ratio = (what: string) => `${what}, each round's over that round's 'executor direct'`;
    return [
      summarize("files: 20 MiB into the workspace through the Worker", "MB/s", each((r) => r.workerIn), note),
      summarize("files: 20 MiB into the workspace, executor direct", "MB/s", each((r) => r.directIn), note),
      summarize("files: in, Worker / direct", "×", each((r) => r.workerIn / r.directIn), ratio("throughput ratio (1 = as fast as writing to the executor directly)")),
      summarize("files: 20 MiB out of the workspace through the Worker", "MB/s", each((r) => r.workerOut), note),
      summarize("files: 20 MiB out of the workspace, executor direct", "MB/s", each((r) => r.directOut), note),
      summarize("files: out, Worker / direct", "×", each((r) => r.workerOut / r.directOut), ratio("throughput ratio")),
      summarize("files: 20 MiB in through the Slack bot and the Worker", "MB/s", each((r) => mbps(r.bot.inMs)), `${botNote}; mention sent → the turn's model call, made once the file is in uploads/`),
      summarize("files: in, Slack bot / direct", "×", each((r) => mbps(r.bot.inMs) / r.directIn), ratio("throughput ratio")),
      summarize("files: 20 MiB out through the Worker and the Slack bot", "MB/s", each((r) => mbps(r.bot.outMs)), `${botNote}; mention with <attach> sent → the upload shared in the thread`),
      summarize("files: out, Slack bot / direct", "×", each((r) => mbps(r.bot.outMs) / r.directOut), ratio("throughput ratio")),
      summarize("files: 20 MiB out through the Worker and the Slack bot, to the upload URL", "MB/s", each((r) => mbps(r.bot.landedMs)), `${botNote}; mention with <attach> sent → every byte at Slack's upload URL (sent while the answer is posted; the share follows)`),
      summarize("files: out to the upload URL, Slack bot / direct", "×", each((r) => mbps(r.bot.landedMs) / r.directOut), ratio("throughput ratio")),
      summarize("files: Slack bot CPU, a turn with 20 MiB in", "ms", each((r) => r.bot.inCpuMs), `${botNote}; user + system CPU from the mention to its end mark`),
      summarize("files: Slack bot CPU, a turn with 4 bytes in", "ms", each((r) => r.bot.tinyInCpuMs), `${botNote}; the same turn with a 4-byte file, just before the 20 MiB one`),
      summarize("files: Slack bot peak RSS over idle, 20 MiB in", "MiB", each((r) => r.bot.inGrowthMiB), `VmHWM while moving it − settled VmRSS just before (${rounds[0].bot.idleMiB.toFixed(1)} MiB in the first round); target ≤ ${BOT_GROWTH_TARGET_MIB}`),
      summarize("files: Slack bot peak RSS over idle, 20 MiB out", "MiB", each((r) => r.bot.outGrowthMiB), `VmHWM while moving it − settled VmRSS just before; target ≤ ${BOT_GROWTH_TARGET_MIB}`),
    ];
  } finally {
    await started.stop();
    rmSync(builtDir, { recursive: true, force: true });
  }
}
