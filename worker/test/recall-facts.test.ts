import { describe, expect, it } from "vitest";
import { DEFAULT_RECALL_TOKENS } from "@duet/shared";
import { PLANTED_FACTS as FACTS } from "./fixtures/planted-facts.ts";
import { freshRoom, send } from "./helpers.ts";
import { ask, chatter, recalledBlock } from "./recall-helpers.ts";

/**
 * Ten facts said early in a 300-turn room, each found again by a later question. A file of its own:
 * under the test pool every request costs more the more requests its runtime has served, so the
 * 600 requests here would slow every recall test after them.
 */

describe("recall", () => {
  it("in a 300-turn room, a question about each of ten facts said early finds it: the prompt holds it, marked with who said it and when", { timeout: 240_000 }, async () => {
    const room = freshRoom("cli-recall");
    for (const [i, [said]] of FACTS.entries()) {
      expect((await send(room, `SAY: noted: ${said}`, { userId: "U-ada", userName: "Ada" })).status).toBe(200);
      await chatter(room, 10, i * 10);
    }
    await chatter(room, 200, 100);
    let found = 0;
    for (const [said, asked] of FACTS) {
      const block = recalledBlock(await ask(room, asked));
      if (block?.includes(said)) found++;
      expect(block ?? "").not.toContain("[facts people");
    }
    console.log(`planted facts recalled: ${found} of ${FACTS.length}`);
    expect(found).toBeGreaterThanOrEqual(9);
    const block = recalledBlock(await ask(room, FACTS[0][1]))!;
    expect(block).toMatch(/\nAda on \d{4}-\d\d-\d\d asked: SAY: noted: staging runs on port 8443\nDuet answered: noted: staging runs on port 8443/);
    expect(block.length).toBeLessThanOrEqual(DEFAULT_RECALL_TOKENS * 4);
  });
});
