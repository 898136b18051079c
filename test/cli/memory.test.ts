import { describe, expect, it } from "vitest";
import { runDuet } from "../helpers/cli-run.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { startStack, type Stack } from "../helpers/stack.ts";

/** `duet remember`, `duet memory` and `duet forget` through the CLI's entry point against a real Worker. */

let stack: Stack;
startedForTests(() => startStack(), (s) => (stack = s));

/** `duet ...argv`: the exit code and what it printed. */
const duet = (...argv: string[]) => runDuet(stack, ...argv);

describe("duet remember, memory, forget", () => {
  it("pins, lists and unpins a room's facts, in the CLI's own spelling", async () => {
    expect(await duet("memory", "cli-memory")).toEqual({ code: 0, out: expect.stringContaining("`duet remember cli-memory FACT` pins one"), err: "" });
    const pinned = await duet("remember", "cli-memory", "make", "test", "needs", "--jobs", "2");
    expect(pinned).toEqual({ code: 0, out: expect.stringMatching(/^cli:\S+ pinned fact 1: `make test needs --jobs 2`\. Duet keeps it in mind in every answer here\.$/), err: "" });
    expect((await duet("memory", "cli-memory")).out).toMatch(/^Facts pinned here \(1 of 100\)[^\n]*\n1\. `make test needs --jobs 2` pinned by cli:\S+ on \d{4}-\d\d-\d\d\n/);
    expect((await duet("forget", "cli-memory", "1")).out).toMatch(/^cli:\S+ unpinned fact 1: `make test needs --jobs 2`\.$/);
    expect((await stack.client.memory("cli-memory")).facts).toEqual([]);
  });

  it("refuses a missing fact or number as a usage error (exit 2) and a fact number not there in one line (exit 1)", async () => {
    expect(await duet("remember", "cli-memory-bad")).toMatchObject({ code: 2, err: expect.stringContaining("duet remember takes a ROOM and the fact to keep") });
    expect(await duet("forget", "cli-memory-bad", "two")).toMatchObject({ code: 2, err: expect.stringContaining("duet forget takes a ROOM and a fact's number N") });
    expect(await duet("forget", "cli-memory-bad", "7")).toEqual({ code: 1, out: "", err: "No fact number 7 here (the room keeps none yet; the memory command lists them)." });
    expect(await duet("remember", "cli-memory-bad", "x".repeat(501))).toMatchObject({ code: 1, err: expect.stringContaining("Fact must be at most 500 characters") });
    expect((await stack.client.memory("cli-memory-bad")).facts).toEqual([]);
  });
});
