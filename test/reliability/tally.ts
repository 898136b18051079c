import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { expect, inject } from "vitest";
import { TALLY_FILE, type TallyEntry } from "./summary.ts";

/**
 * What the reliability suite observed, written as it happens. Every test file
 * runs in its own vitest worker, so nothing is kept in memory: each observation
 * is one JSON line appended to a file in the directory the global setup made,
 * and the global teardown adds them up (summary.ts).
 *
 * Only what a check observed is counted: a turn is recorded as sent, then with
 * the number of replies the test found in the fake platform, written before
 * the test asserts that number, so a duplicate or a missing answer is on record
 * whether or not the test goes on. A test that dies half-way leaves its turn
 * sent but never answered, which the teardown reports as a lost message.
 */

declare module "vitest" {
  export interface ProvidedContext {
    reliabilityTallyDir: string;
  }
}

function record(entry: TallyEntry): void {
  appendFileSync(join(inject("reliabilityTallyDir"), TALLY_FILE), `${JSON.stringify(entry)}\n`);
}

/** Names repeat across files and loops; the suffix keeps a turn's two records together. */
const uniqueId = (name: string) => `${name}#${randomUUID().slice(0, 8)}`;

export interface TurnTally {
  /** Records how many replies the user got for this turn, then asserts it was exactly one. */
  answered(replies: readonly unknown[]): void;
}

/** A turn about to be sent (a mention, an interaction, a Worker message). */
export function turn(name: string): TurnTally {
  const id = uniqueId(name);
  record({ kind: "turn", id, event: "sent" });
  return {
    answered(replies) {
      // Recorded before the assertion, so a duplicate or a missing answer is on record even though the test then fails.
      record({ kind: "turn", id, event: "observed", replies: replies.length });
      expect(replies, `replies to ${name}`).toHaveLength(1);
    },
  };
}
