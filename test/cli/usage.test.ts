import { describe, expect, it } from "vitest";
import { dollars } from "@duet/shared";
import { runDuet } from "../helpers/cli-run.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { startStack, type Stack } from "../helpers/stack.ts";

/**
 * `duet usage` through the CLI's entry point against a real Worker: DUET_MODELS
 * offers an unpriced model and a priced one ($5,000 per million tokens in and
 * out), and the room may spend $1 a day.
 */

let stack: Stack;
const VARS = { DUET_MODELS: "fake-model,large=openai:fake-large@5000/5000", DUET_ROOM_DAILY_USD: "1" };
startedForTests(() => startStack({ vars: VARS }), (s) => (stack = s));

const duet = (...argv: string[]) => runDuet(stack, ...argv);
const callWith = (marker: string) => stack.model.calls.find((c) => c.messages.at(-1)?.content.includes(marker));

describe("duet usage", () => {
  it("shows a priced model's cost beside its tokens and the room's spending, and says an unpriced one shows tokens only", async () => {
    const room = "cli-usage-money";
    expect((await duet("ask", room, "SAY: free-turn")).code).toBe(0);
    expect((await duet("model", room, "large")).code).toBe(0);
    expect((await duet("ask", room, "SAY: paid-turn")).code).toBe(0);
    const free = callWith("free-turn")!.usage!;
    const paid = callWith("paid-turn")!.usage!;
    // Five thousandths of a dollar a token, in and out.
    const cost = (paid.prompt_tokens + paid.completion_tokens) * 0.005;

    const usage = await duet("usage", room);
    expect(usage.code).toBe(0);
    expect(usage.out).toMatch(new RegExp(` · large · ${paid.prompt_tokens} in / ${paid.completion_tokens} out · ${dollars(cost).replace(/[$.]/g, "\\$&")} · 1 turn`));
    expect(usage.out).toMatch(new RegExp(` · fake-model · ${free.prompt_tokens} in / ${free.completion_tokens} out · 1 turn`));
    expect(usage.out).toMatch(/Room spending: \$[\d.,]+ of \$1\.00 today, \$0\.00 left \(resets at 00:00 UTC\)\./);
    expect(usage.out).toContain("No price for `fake-model`: tokens only (prices are set in DUET_MODELS).");
  });
});
