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
 * Counts come only from here, and only after a test saw the thing it counts: a
 * fault is "survived" once the test asserted what the user saw afterwards, a
 * turn is "answered" with the number of replies the test found in the fake
 * platform. A test that dies half-way leaves its turn sent but never answered,
 * which the teardown reports as a lost message.
 */

declare module "vitest" {
  export interface ProvidedContext {
    reliabilityTallyDir: string;
  }
}

function record(entry: TallyEntry): void {
  appendFileSync(join(inject("reliabilityTallyDir"), TALLY_FILE), `${JSON.stringify(entry)}\n`);
}

/** Names repeat across files and loops; the suffix keeps each observation's pair together. */
const uniqueId = (name: string) => `${name}#${randomUUID().slice(0, 8)}`;

/** A fault about to be injected; call `survived()` after asserting what users saw despite it. */
export function fault(name: string): { survived(): void } {
  const id = uniqueId(name);
  record({ kind: "fault", id, event: "injected" });
  return { survived: () => record({ kind: "fault", id, event: "survived" }) };
}

/** A hostile or malformed input about to be sent; call `rejected()` after asserting its clean refusal. */
export function badInput(name: string): { rejected(): void } {
  const id = uniqueId(name);
  record({ kind: "bad-input", id, event: "tried" });
  return { rejected: () => record({ kind: "bad-input", id, event: "rejected" }) };
}

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
