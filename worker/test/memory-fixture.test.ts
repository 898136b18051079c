import { describe, expect, it } from "vitest";
import { DEFAULT_MODEL_MAX_TOKENS } from "@duet/shared";
import { RECALL_LABEL, SUMMARY_LABEL } from "../src/model/prompt.ts";
import { inRoom } from "./control-helpers.ts";
import { PLANTED_FACTS, plantedRoom, type FixtureTurn } from "./fixtures/planted-facts.ts";
import { api, freshRoom, modelCallsWith, roomStub, send, type SeenModelCall } from "./helpers.ts";

/** A year-old room of 2,000 messages: asked about what was settled months ago, the model is shown it. */

/** An 8K-token model's context, less the answer's own tokens: what no prompt may pass. */
const CONTEXT_BUDGET_TOKENS = 8192 - DEFAULT_MODEL_MAX_TOKENS;

/** Writes the fixture's turns into the room as its turns would be answered: each accepted, then answered, through the room's ledger. */
async function seed(room: string, turns: FixtureTurn[]): Promise<void> {
  await inRoom(roomStub(room), (agent) => {
    const { ledger } = agent.room;
    for (const t of turns) {
      const turn = ledger.accept({ kind: "message", idemKey: null, userId: t.userId, userName: t.userName, question: t.question, receivedAt: t.at }, t.at);
      ledger.answer(turn, { reply: t.answer, explanation: t.answer, runs: [] }, t.answer, t.at + 1_000);
    }
  });
}

describe("a room that remembers", () => {
  it("in a 2,000-message room with ten facts planted months back, the prompt for a question about each holds it for at least 9 of 10, and no prompt passes an 8K-token context", { timeout: 120_000 }, async () => {
    const room = freshRoom("cli-remember");
    await seed(room, plantedRoom(1_000));
    // The room holds its whole conversation: the history's last 50 messages, and pages further back.
    const page = (await (await api(`/api/rooms/${room}/messages`)).json()) as { messages: unknown[]; before?: number };
    expect(page.messages).toHaveLength(50);
    expect(page.before).toBeDefined();
    let found = 0;
    for (const [said, asked] of PLANTED_FACTS) {
      const marker = `ask-${Math.random().toString(36).slice(2, 10)}`;
      expect((await send(room, `SAY: ok ${marker} ${asked}`)).status).toBe(200);
      const [call] = (await modelCallsWith(marker)) as (SeenModelCall & { usage?: { prompt_tokens: number } })[];
      // Shown in a labelled block (recalled or summarised), never as though someone just said it.
      const shown = call.messages.filter((m) => m.content.startsWith(RECALL_LABEL) || m.content.startsWith(SUMMARY_LABEL)).map((m) => m.content);
      if (shown.some((block) => block.includes(said))) found++;
      expect(call.usage!.prompt_tokens).toBeLessThanOrEqual(CONTEXT_BUDGET_TOKENS);
    }
    console.log(`planted facts in the prompt, in a 2,000-message room: ${found} of ${PLANTED_FACTS.length}`);
    expect(found).toBeGreaterThanOrEqual(9);
  });
});
