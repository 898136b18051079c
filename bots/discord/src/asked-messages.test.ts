import { describe, expect, it } from "vitest";
import { AskedMessages } from "./asked-messages.ts";

const msg = (text: string) => ({ author: "Mallory", text, files: [] });

describe("the messages Ask Duet modals are open on", () => {
  it("gives a message back once, to the person who opened the modal", () => {
    const asked = new AskedMessages();
    asked.remember("alice", "m1", msg("a stack trace"));
    expect(asked.take("bob", "m1")).toBeNull();
    expect(asked.take("alice", "m1")).toEqual(msg("a stack trace"));
    expect(asked.take("alice", "m1")).toBeNull();
  });

  it("forgets a modal left open past an interaction token's 15 minutes", () => {
    let now = 0;
    const asked = new AskedMessages(() => now);
    asked.remember("alice", "m1", msg("kept"));
    asked.remember("alice", "m2", msg("too old"));
    now = 15 * 60_000;
    expect(asked.take("alice", "m1")).toEqual(msg("kept"));
    now += 1;
    expect(asked.take("alice", "m2")).toBeNull();
  });

  it("keeps at most 1,000, dropping the oldest first", () => {
    const asked = new AskedMessages();
    for (let i = 0; i <= 1_000; i++) asked.remember("alice", `m${i}`, msg(String(i)));
    expect(asked.take("alice", "m0")).toBeNull();
    expect(asked.take("alice", "m1")).toEqual(msg("1"));
    expect(asked.take("alice", "m1000")).toEqual(msg("1000"));
  });
});
