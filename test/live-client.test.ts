import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TurnStreamEvent } from "@duet/shared";
import { startStack, type Stack } from "./helpers/stack.ts";

describe("the shared client's live turns against the real Worker", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("streams the text and each command as they happen, and resolves with the JSON answer's body", async () => {
    const seen: TurnStreamEvent[] = [];
    let firstText!: () => void;
    const sawText = new Promise<void>((resolve) => (firstText = resolve));
    const answer = stack.client.messageStream("cli-live-room", { text: "HOLD:client-first CHUNK:12 SAY: Checking the box <run>echo live-ok</run>", userId: "u1" }, (e) => {
      seen.push(e);
      if (e.event === "text") firstText();
    });
    // The fake model holds all but its first piece until released: this text arrived before the end.
    await sawText;
    await fetch(`${stack.model.url}/_release/client-first`, { method: "POST" });
    const done = await answer;
    expect(seen.filter((e) => e.event !== "text").map((e) => e.event)).toEqual(["run-start", "run-end"]);
    expect(seen.find((e) => e.event === "run-end")?.data).toMatchObject({ index: 0, cmd: "echo live-ok", exitCode: 0, stdout: "live-ok\n" });
    expect(done.reply).toContain("Output (echo live-ok):\nlive-ok");
    expect(done.messages.map((m) => m.role)).toEqual(["user", "agent"]);
  });

  it("stop(roomId, userId) ends a running turn, whose stream resolves as stopped", async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const answer = stack.client.messageStream("cli-live-stop", { text: "HANG:client-stop CHUNK:10 SAY: Working on it, still working" }, (e) => {
      if (e.event === "text") started();
    });
    await running;
    expect(await stack.client.stop("cli-live-stop", "u2")).toEqual({ stopped: true });
    expect(await answer).toMatchObject({ stopped: true, runs: [] });
    expect(await stack.client.stop("cli-live-stop")).toEqual({ stopped: false });
  });
});
