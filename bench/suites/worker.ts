import type { Stack } from "../../test/helpers/stack.ts";
import { single, summarize, type Result } from "../stats.ts";

interface RoomStats {
  messages: number;
  rowsWrittenSinceStart: number;
  bytesBoundSinceStart: number;
}

async function stats(stack: Stack, room: string): Promise<RoomStats> {
  const res = await fetch(`${stack.workerUrl}/api/rooms/${room}/stats`, { headers: { authorization: `Bearer ${stack.token}` } });
  return (await res.json()) as RoomStats;
}

/**
 * Storage cost of one message at history length 1 and 50, side by side: rows
 * written and bytes bound to write statements, as the room itself counts them.
 */
export async function storageCost(stack: Stack, runs = 5): Promise<Result[]> {
  const rows1: number[] = [];
  const rows50: number[] = [];
  const bytes1: number[] = [];
  const bytes50: number[] = [];
  const text = "how do I find large files in this repo?";
  for (let r = 0; r < runs; r++) {
    const room = `cli-bench-storage${r}-${Date.now().toString(36)}`;
    const s0 = await stats(stack, room);
    await stack.client.message(room, { text, userId: "U1" });
    const s1 = await stats(stack, room);
    rows1.push(s1.rowsWrittenSinceStart - s0.rowsWrittenSinceStart);
    bytes1.push(s1.bytesBoundSinceStart - s0.bytesBoundSinceStart);
    // Fill to 48 messages, then measure the turn that makes it 50.
    while ((await stats(stack, room)).messages < 48) await stack.client.message(room, { text, userId: "U1" });
    const s49 = await stats(stack, room);
    await stack.client.message(room, { text, userId: "U1" });
    const s50 = await stats(stack, room);
    rows50.push(s50.rowsWrittenSinceStart - s49.rowsWrittenSinceStart);
    bytes50.push(s50.bytesBoundSinceStart - s49.bytesBoundSinceStart);
  }
  return [
    summarize("worker: rows written per turn, history 1", "rows", rows1),
    summarize("worker: rows written per turn, history 50", "rows", rows50),
    summarize("worker: bytes bound per turn, history 1", "bytes", bytes1, "user + agent message rows (2 messages)"),
    summarize("worker: bytes bound per turn, history 50", "bytes", bytes50, "same turn; a whole-history rewrite would bind ~50x the message size"),
  ];
}

/** Messages per second with an instant model, spread over `rooms` rooms, `concurrency` in flight. */
export async function throughput(stack: Stack, rooms: number, total: number, concurrency = 16): Promise<Result> {
  const tag = Date.now().toString(36);
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        await stack.client.message(`cli-bench-tp${tag}-r${i % rooms}`, { text: `message ${i}` });
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const result = single(`worker: messages/s across ${rooms} room(s)`, "msg/s", total / seconds, total, `${concurrency} in flight; latency median ${Math.round(summarize("", "", latencies).median)} ms`);
  return result;
}
