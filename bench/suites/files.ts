import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BOT_ENTRIES, bundle } from "../../scripts/build/bundle.ts";
import { startSandboxStack } from "../../test/helpers/sandbox-stack.ts";
import { single, type Result } from "../stats.ts";
import { throughSlackBot } from "./files-bot.ts";

/**
 * A 20 MiB file in and out of a room's workspace through the Worker (PUT and
 * GET /api/rooms/:roomId/files, streamed through workerd to the bubblewrap
 * executor), beside the same bytes put to and read from the executor's own
 * files API directly: MB/s each way and the Worker's ratio to the direct path.
 * One run each (the issue asks for one); the bytes are checked on the way back.
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

export async function filesSuite(): Promise<Result[]> {
  const builtDir = mkdtempSync(join(tmpdir(), "duet-bench-files-"));
  // Built before anything is timed, as `pnpm build` builds the image's bots.
  await bundle(builtDir, { ...BOT_ENTRIES, probe: "bench/bots/probe.ts" });
  const started = await startSandboxStack({ executor: { fileMaxBytes: 32 * 1024 * 1024 } });
  try {
    const { stack, executor } = started;
    const bytes = randomBytes(FILE_BYTES);
    const sha = createHash("sha256").update(bytes).digest("hex");
    const direct = (path: string) => `${executor.url}/api/sessions/sandbox-cli-bench-files-direct/files/${path}`;
    // Both paths warmed once (the Worker's isolate, the workspaces), so neither figure carries a start-up.
    await stack.client.putFile("cli-bench-files", "warm.txt", new TextEncoder().encode("warm"));
    const auth = { authorization: `Bearer ${started.executorToken}` };
    await fetch(direct("warm.txt"), { method: "PUT", headers: auth, body: "warm" }).then((r) => r.text());

    const workerIn = await timed(() => stack.client.putFile("cli-bench-files", "big.bin", pieces(bytes)));
    const workerOut = await timed(async () => Buffer.from(await new Response((await stack.client.getFile("cli-bench-files", "big.bin")).body).arrayBuffer()));
    const directIn = await timed(async () => (await fetch(direct("big.bin"), { method: "PUT", headers: auth, body: pieces(bytes), duplex: "half" } as RequestInit)).json());
    const directOut = await timed(async () => Buffer.from(await (await fetch(direct("big.bin"), { headers: auth })).arrayBuffer()));
    for (const [name, ok] of [
      ["worker in", workerIn.value.sha256 === sha],
      ["worker out", workerOut.value.equals(bytes)],
      ["direct in", (directIn.value as { sha256: string }).sha256 === sha],
      ["direct out", directOut.value.equals(bytes)],
    ] as const) {
      if (!ok) throw new Error(`files: the ${name} bytes differ from what was sent`);
    }
    const bot = await throughSlackBot(stack, builtDir, bytes, sha);
    const note = "20 MiB, one run, streamed in 256 KiB pieces";
    const botNote = "built Slack bot (HTTP mode), fake Slack, instant model; one run";
    return [
      single("files: 20 MiB into the workspace through the Worker", "MB/s", mbps(workerIn.ms), 1, note),
      single("files: 20 MiB into the workspace, executor direct", "MB/s", mbps(directIn.ms), 1, note),
      single("files: in, Worker / direct", "×", mbps(workerIn.ms) / mbps(directIn.ms), 1, "throughput ratio (1 = as fast as writing to the executor directly)"),
      single("files: 20 MiB out of the workspace through the Worker", "MB/s", mbps(workerOut.ms), 1, note),
      single("files: 20 MiB out of the workspace, executor direct", "MB/s", mbps(directOut.ms), 1, note),
      single("files: out, Worker / direct", "×", mbps(workerOut.ms) / mbps(directOut.ms), 1, "throughput ratio"),
      single("files: 20 MiB in through the Slack bot and the Worker", "MB/s", mbps(bot.inMs), 1, `${botNote}; mention sent → the turn's model call, made once the file is in uploads/`),
      single("files: in, Slack bot / direct", "×", mbps(bot.inMs) / mbps(directIn.ms), 1, "throughput ratio to 'executor direct' in this run"),
      single("files: 20 MiB out through the Worker and the Slack bot", "MB/s", mbps(bot.outMs), 1, `${botNote}; mention with <attach> sent → the upload shared in the thread`),
      single("files: out, Slack bot / direct", "×", mbps(bot.outMs) / mbps(directOut.ms), 1, "throughput ratio to 'executor direct' in this run"),
      single("files: 20 MiB out through the Worker and the Slack bot, to the upload URL", "MB/s", mbps(bot.landedMs), 1, `${botNote}; mention with <attach> sent → every byte at Slack's upload URL (sent while the answer is posted; the share follows)`),
      single("files: out to the upload URL, Slack bot / direct", "×", mbps(bot.landedMs) / mbps(directOut.ms), 1, "throughput ratio to 'executor direct' in this run"),
      single("files: Slack bot peak RSS over idle, 20 MiB in", "MiB", bot.inGrowthMiB, 1, `VmHWM while moving it − settled VmRSS just before (${bot.idleMiB.toFixed(1)} MiB); target ≤ ${BOT_GROWTH_TARGET_MIB}`),
      single("files: Slack bot peak RSS over idle, 20 MiB out", "MiB", bot.outGrowthMiB, 1, `VmHWM while moving it − settled VmRSS just before; target ≤ ${BOT_GROWTH_TARGET_MIB}`),
    ];
  } finally {
    await started.stop();
    rmSync(builtDir, { recursive: true, force: true });
  }
}
