import { randomBytes } from "node:crypto";
import { declaredLength, fetchFromSource, limitBytes } from "@duet/shared";
import { startFakeSlack } from "../test/fakes/slack/index.ts";
import { startSeparateExecutorStack } from "./executor-process.ts";
import { median } from "./stats.ts";
import { FILE_BYTES, pieces } from "./suites/files.ts";

/**
 * Where a file's time goes, one hop at a time: the same 20 MiB straight to the
 * bubblewrap executor, through the Worker (wrangler's dev proxy, the runtime)
 * with and without a declared length, out both ways, and the bot's own hop
 * (the fake Slack's download piped through the bot's count, `limitBytes`, into
 * the Worker, as the bots do, here in this process). Each round runs every hop
 * once, in turn, so a busy moment on the machine falls on all of them. The
 * executor runs in its own process, as in `pnpm dev` and production.
 *
 *   node --import tsx bench/files-hops.ts [rounds]
 *
 * Prints each hop's median and every round's time; `pnpm bench files` gives the
 * whole path through the built bot.
 */

const ROUNDS = Number(process.argv[2] ?? 5);
const ROOM = "cli-bench-files-hops";

const started = await startSeparateExecutorStack({ DUET_FILE_MAX_BYTES: String(32 * 1024 * 1024) });
const slack = await startFakeSlack();
try {
  const { stack, executor } = started;
  const bytes = randomBytes(FILE_BYTES);
  const auth = { authorization: `Bearer ${executor.token}` };
  const direct = (path: string) => `${executor.url}/api/sessions/sandbox-${ROOM}/files/${path}`;
  const shared = slack.sharedFiles.share({ name: "big.bin", content: bytes, mimetype: "application/octet-stream" });
  const download = () => fetchFromSource(String(shared.url_private_download), { platform: "Slack", hosts: [], origins: [slack.url] }, { authorization: `Bearer ${slack.id.botToken}` });
  // Warm both ends, so no hop carries a start-up.
  await stack.client.putFile(ROOM, "warm.txt", new TextEncoder().encode("warm"));
  await (await fetch(direct("warm.txt"), { method: "PUT", headers: auth, body: "warm" })).text();

  const hops: Record<string, () => Promise<unknown>> = {
    "in, executor direct (no length)": async () => (await fetch(direct("big.bin"), { method: "PUT", headers: auth, body: pieces(bytes), duplex: "half" } as RequestInit)).json(),
    "in, Worker, declared length": () => stack.client.putFile(ROOM, "big.bin", pieces(bytes), { bytes: FILE_BYTES }),
    "in, Worker, no length": () => stack.client.putFile(ROOM, "big.bin", pieces(bytes)),
    "fake Slack download alone": async () => {
      const reader = (await download()).body!.getReader();
      while (!(await reader.read()).done);
    },
    "fake Slack → limitBytes → Worker": async () => {
      const res = await download();
      await stack.client.putFile(ROOM, "big.bin", limitBytes(res.body!, FILE_BYTES), { bytes: declaredLength(res) });
    },
    "out, executor direct": async () => (await fetch(direct("big.bin"), { headers: auth })).arrayBuffer(),
    "out, Worker": async () => new Response((await stack.client.getFile(ROOM, "big.bin")).body).arrayBuffer(),
  };
  const times: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, hop] of Object.entries(hops)) {
      const t0 = performance.now();
      await hop();
      (times[name] ??= []).push(performance.now() - t0);
    }
  }
  for (const [name, ms] of Object.entries(times)) {
    const mid = median(ms);
    console.log(`${name.padEnd(36)} ${mid.toFixed(0).padStart(6)} ms ${(FILE_BYTES / 1024 / 1024 / (mid / 1000)).toFixed(1).padStart(7)} MB/s   [${ms.map((t) => t.toFixed(0)).join(" ")}]`);
  }
} finally {
  await slack.close();
  await started.stop();
}
