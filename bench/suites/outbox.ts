import { fileURLToPath } from "node:url";
import { startFakeSlack } from "../../test/fakes/slack/index.ts";
import { startStack } from "../../test/helpers/stack.ts";
import { mentionEvent } from "../../test/fakes/slack/deliver.ts";
import { botReplies, startBot } from "../../test/slack/harness.ts";
import type { BenchStack } from "../stack.ts";
import { summarize, type Result } from "../stats.ts";

/**
 * The outbox's cost and its one latency. Rows: SQLite rows a room writes for
 * a turn kept for delivery and confirmed by its bot (the turn row accepted,
 * answered, confirmed), as the room counts them. Delivery after a restart: an
 * answer finished while no bot runs (its bot died), then a Slack bot started
 * (in this process, HTTP mode, against the fake Slack): the time from the
 * start to the answer in its thread, and from the Worker's finish to it (which
 * holds the grace time the room waits for the dead bot's confirm). Beside
 * the rows, in the same run: the seed's design (bench/seed-design/, its own
 * Worker) answering the same turn, which keeps nothing for delivery.
 */

/** Grace time in this suite's Worker (15 s in production): the finish-to-posted figure carries it. */
export const OUTBOX_GRACE_MS = 200;

const SEED_CONFIG = fileURLToPath(new URL("../seed-design/wrangler.toml", import.meta.url));

type Reachable = Pick<BenchStack, "workerUrl" | "token">;

async function rowsWritten(stack: Reachable, room: string): Promise<number> {
  const res = await fetch(`${stack.workerUrl}/api/rooms/${room}/stats`, { headers: { authorization: `Bearer ${stack.token}` } });
  return ((await res.json()) as { rowsWrittenSinceStart: number }).rowsWrittenSinceStart;
}

async function ask(stack: Reachable, room: string, text: string): Promise<void> {
  const res = await fetch(`${stack.workerUrl}/api/rooms/${room}/message`, {
    method: "POST",
    headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json" },
    body: JSON.stringify({ text }),
  });
  if (!res.ok) throw new Error(`the seed design answered HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
}

/**
 * Rows the seed's design writes for one turn without commands, in a room
 * warmed by one turn; the rows its stats request itself writes (the SDK's
 * bookkeeping) are left out, as in the side-by-side suite.
 */
async function seedRowsPerTurn(seed: Reachable, room: string): Promise<number> {
  await ask(seed, room, "SAY: warm");
  const a = await rowsWritten(seed, room);
  const overhead = (await rowsWritten(seed, room)) - a;
  const r0 = await rowsWritten(seed, room);
  await ask(seed, room, "SAY: delivered at once");
  return (await rowsWritten(seed, room)) - r0 - overhead;
}

export async function outboxSuite(stack: BenchStack, samples: number): Promise<Result[]> {
  const slack = await startFakeSlack();
  const seed = await startStack({ executor: "none", config: SEED_CONFIG });
  const tag = Date.now().toString(36);
  const rows: number[] = [];
  const seedRows: number[] = [];
  const restartToPosted: number[] = [];
  const finishToPosted: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const channel = `CBOX${tag.toUpperCase()}${i}`;
      const room = `slack-T0DUET-${channel}`;
      const threadTs = String(mentionEvent(slack, { channel, text: "SAY: something" }).event.ts);
      const deliver = { platform: "slack" as const, place: { channel, threadTs, ts: threadTs } };
      // A turn answered and confirmed by its bot, as a live delivery does it (the room warmed by one turn first).
      await stack.client.message(room, { text: "SAY: warm", idempotencyKey: `warm-${tag}-${i}` });
      const r0 = await rowsWritten(stack, room);
      await stack.client.message(room, { text: "SAY: delivered at once", idempotencyKey: `live-${tag}-${i}`, deliver });
      await stack.client.confirmDelivery(room, { key: `live-${tag}-${i}`, messageId: `1700000000.${String(i).padStart(6, "0")}` });
      rows.push((await rowsWritten(stack, room)) - r0);
      seedRows.push(await seedRowsPerTurn(seed, `slack-T0SEED-${channel}`));

      // A turn whose bot died: the answer waits in the room, then a bot starts.
      const marker = `waiting-${tag}-${i}`;
      await stack.client.message(room, { text: `SAY: ${marker}`, idempotencyKey: marker, deliver });
      const finished = performance.now();
      await new Promise((r) => setTimeout(r, OUTBOX_GRACE_MS + 100));
      const started = performance.now();
      const bot = await startBot(slack, stack);
      try {
        await slack.waitFor(() => botReplies(slack, channel, threadTs).some((m) => m.text.includes(marker)), `the waiting answer in ${channel}`);
        const posted = performance.now();
        restartToPosted.push(posted - started);
        finishToPosted.push(posted - finished);
      } finally {
        await bot.stop();
      }
    }
  } finally {
    await slack.close();
    await seed.stop();
  }
  return [
    summarize("outbox: SQLite rows written per turn delivered at once", "rows", rows, "a turn without commands kept for delivery: accepted, answered, confirmed"),
    summarize("outbox: seed design, SQLite rows written per turn, same run", "rows", seedRows, "the same turn in the seed's design (no outbox), its Worker started by this suite; its stats request's own rows left out"),
    summarize("outbox: bot start to a waiting answer posted", "ms", restartToPosted, "in-process Slack bot (HTTP mode) started after the answer was offered; its first read of the feed does not wait"),
    summarize("outbox: Worker finish to a waiting answer posted, across a bot restart", "ms", finishToPosted, `grace ${OUTBOX_GRACE_MS} ms in this run (15 s in production) + 100 ms + the bot's start`),
  ];
}
