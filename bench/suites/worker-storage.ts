import { HISTORY_KEEP } from "@duet/shared";
import type { BenchStack } from "../stack.ts";
import { summarize, type Result } from "../stats.ts";

/**
 * State written per message at history 1 and at a full history (50), side by
 * side, as the room itself counts it over every statement on its database
 * (the agents SDK's keep-alive job row included): SQLite rows written and bytes
 * bound to statements that wrote. A turn stores two messages (the question and
 * the answer) plus its turn row (kept for idempotent replay), and inserts and
 * deletes one keep-alive job row, so per message = per turn / 2.
 */

interface RoomStats {
  messages: number;
  rowsWrittenSinceStart: number;
  bytesBoundSinceStart: number;
}

async function roomStats(stack: BenchStack, room: string): Promise<RoomStats> {
  const res = await fetch(`${stack.workerUrl}/api/rooms/${room}/stats`, { headers: { authorization: `Bearer ${stack.token}` } });
  return (await res.json()) as RoomStats;
}

// ~200 characters, about the size the 12.8 KB-per-rewrite figure assumes (50 × ~256 B).
const QUESTION =
  "how do I find the ten largest files in this repository, excluding node_modules and .git, and print their sizes in a human readable form? please explain each flag you use so I can adapt it later";

export async function storageCost(stack: BenchStack, runs = 5): Promise<Result[]> {
  const rows = { first: [] as number[], full: [] as number[] };
  const bytes = { first: [] as number[], full: [] as number[] };
  const tag = Date.now().toString(36);
  const turn = async (room: string, into: "first" | "full") => {
    const s0 = await roomStats(stack, room);
    await stack.client.message(room, { text: QUESTION, userId: "U1" });
    const s1 = await roomStats(stack, room);
    rows[into].push(s1.rowsWrittenSinceStart - s0.rowsWrittenSinceStart);
    bytes[into].push((s1.bytesBoundSinceStart - s0.bytesBoundSinceStart) / 2);
  };
  for (let r = 0; r < runs; r++) {
    const room = `cli-bench-storage-${tag}-${r}`;
    await turn(room, "first");
    // Fill to the cap; from then on each turn also trims the two oldest messages.
    while ((await roomStats(stack, room)).messages < HISTORY_KEEP) await stack.client.message(room, { text: QUESTION, userId: "U1" });
    await turn(room, "full");
  }
  const perTurn = "one turn = 2 messages + its turn row + the keep-alive job row in and out";
  return [
    summarize("worker: state bytes written per message, history 1", "bytes", bytes.first, `bytes bound ÷ 2; ${QUESTION.length}-char question, echoed answer`),
    summarize(`worker: state bytes written per message, history ${HISTORY_KEEP}`, "bytes", bytes.full, `same; a whole-history rewrite would write ~${Math.round((HISTORY_KEEP * (QUESTION.length + 60)) / 1024)} KB`),
    summarize("worker: SQLite rows written per turn, history 1", "rows", rows.first, perTurn),
    summarize(`worker: SQLite rows written per turn, history ${HISTORY_KEEP}`, "rows", rows.full, `${perTurn}, plus 2 trimmed`),
  ];
}
