import { describe, expect, it } from "vitest";
import { WorkerClient } from "../client/client.ts";
import { CLAIM_HEADER } from "../wire/claims.ts";
import { parseDuetCommand } from "../commands/commands.ts";
import { ask, help, history, reset, run, runCommand } from "./flow.ts";
import type { FlowDeps } from "./types.ts";
import type { ChatSurface } from "./surface.ts";
import { fakeSurface, answer, execResult, setup, asker, type Seen } from "./flow-fixtures.ts";

// Each command's flow (ask, run, history, reset, help, stop) against the recording surface of flow-fixtures.ts.

describe("ask", () => {
  it("asks the Worker with progress shown, stops it before the answer, and posts the answer", async () => {
    const { deps, seen, used, surface } = setup();
    expect(await ask(deps, surface, asker, "  what\u200b is here?  ")).toBe("answered");
    expect(seen.events).toEqual(["progress:on", "worker:POST /api/rooms/slack-T1-C1/message", "progress:off", "post:answer"]);
    expect(seen.requests[0].body).toEqual({ text: "what is here?", userId: "U1", idempotencyKey: "Ev1" });
    expect(seen.posted).toEqual([{ kind: "answer", answer, question: "what is here?", user: "U1" }]);
    expect(used).toEqual(["slack-T1-C1"]);
  });

  it("answers an empty question with the hint, without the Worker or progress", async () => {
    const { deps, seen, surface } = setup();
    expect(await ask(deps, surface, asker, " \u200b\u0007 ", "Say something after @Duet.")).toBe("answered");
    expect(seen.events).toEqual(["post:hint"]);
    expect(seen.posted).toEqual([{ kind: "hint", text: "Say something after @Duet." }]);
  });

  it("refuses a question past 8,000 characters without the Worker, in the words the typed `ask` uses", async () => {
    const { deps, seen, surface } = setup();
    const long = "why? ".repeat(2_000);
    expect(await ask(deps, surface, asker, long)).toBe("failed");
    expect(seen.events).toEqual(["post:error"]);
    const typed = parseDuetCommand(`ask ${long}`);
    expect(typed.kind === "help" && typed.problem).toBe("That question is 9,999 characters long; Duet accepts at most 8,000. Please shorten it.");
    expect(seen.posted).toEqual([{ kind: "error", code: "payload_too_large", text: typed.kind === "help" && typed.problem }]);
    // Exactly at the limit it is asked.
    expect(await ask(deps, surface, asker, "x".repeat(8_000))).toBe("answered");
  });

  it("posts a failure in the shared words, with its code, and logs it", async () => {
    const { deps, seen, used, logged, surface } = setup(502, { error: "upstream 500", code: "model_error" });
    expect(await ask(deps, surface, asker, "hello")).toBe("failed");
    expect(seen.events).toEqual(["progress:on", "worker:POST /api/rooms/slack-T1-C1/message", "progress:off", "post:error"]);
    // The line ends with the ref of the trace the Worker was asked in, so `duet trace <ref>` finds the turn.
    const traceId = /^00-([0-9a-f]{32})-[0-9a-f]{16}-01$/.exec(seen.requests[0].traceparent ?? "")?.[1];
    expect(traceId).toBeDefined();
    expect(seen.posted).toEqual([{ kind: "error", code: "model_error", text: `The AI model failed to answer (upstream 500). Please try again in a moment. (ref ${traceId!.slice(0, 8)})` }]);
    expect(logged).toEqual(["ask in slack-T1-C1 failed: upstream 500"]);
    expect(used).toEqual([]);
  });

  it("a claimed ask that another delivery asked first posts nothing, live or whole, and ends elsewhere", async () => {
    const claims: (string | null)[] = [];
    const fetch: typeof globalThis.fetch = async (_input, init) => {
      claims.push(new Headers(init?.headers).get(CLAIM_HEADER));
      return new Response(JSON.stringify({ error: "another delivery of this event asked first", code: "answered_elsewhere" }), { status: 409, headers: { "content-type": "application/json" } });
    };
    const deps: FlowDeps = { worker: new WorkerClient({ baseUrl: "http://worker.test", token: "t", fetch, retries: 0 }), log: () => {} };
    const seen: Seen = { events: [], posted: [], privately: [], requests: [] };
    const whole = fakeSurface(seen);
    const live: ChatSurface = { ...whole, live: () => ({ update: () => void seen.events.push("update"), finish: async () => (seen.events.push("finish"), { id: "live" }) }) };
    const claimed = { ...asker, claim: "delivery-1" };
    expect(await ask({ ...deps, streaming: false }, whole, claimed, "hello")).toBe("elsewhere");
    expect(await ask(deps, live, claimed, "hello")).toBe("elsewhere");
    expect(claims).toEqual(["delivery-1", "delivery-1"]);
    expect(seen.events).toEqual(["progress:on", "progress:off", "progress:on", "progress:off"]);
  });

  it("counts an answer the platform refused as failed", async () => {
    const { deps, surface } = setup(200, answer, { refuse: true });
    expect(await ask(deps, surface, asker, "hello")).toBe("failed");
  });
});

describe("run", () => {
  it("runs the command as typed in the room's sandbox and posts its result", async () => {
    const { deps, seen, used, surface } = setup(200, { result: execResult, sandboxName: "sandbox-slack-T1-C1" });
    expect(await run(deps, surface, asker, "echo hi\n")).toBe("answered");
    expect(seen.events).toEqual(["progress:on", "worker:POST /api/rooms/slack-T1-C1/sandbox/exec", "progress:off", "post:ran"]);
    expect(seen.requests[0].body).toEqual({ cmd: "echo hi\n", userId: "U1", idempotencyKey: "Ev1" });
    expect(seen.posted).toEqual([{ kind: "ran", cmd: "echo hi\n", result: execResult, user: "U1" }]);
    expect(used).toEqual(["slack-T1-C1"]);
  });
});

describe("history", () => {
  const messages = [{ role: "user" as const, userId: "U1", text: "hi", ts: 1 }];

  it("shows the room's messages to the asker only", async () => {
    const { deps, seen, surface } = setup(200, { messages });
    expect(await history(deps, surface, asker)).toBe("answered");
    expect(seen.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/rooms/slack-T1-C1/messages"]);
    expect(seen.privately).toEqual([{ kind: "history", messages }]);
    expect(seen.posted).toEqual([]);
  });

  it("tells only the asker when it failed", async () => {
    const { deps, seen, surface } = setup(401, { error: "unauthorized", code: "unauthorized" });
    expect(await history(deps, surface, asker)).toBe("failed");
    expect(seen.privately).toEqual([{ kind: "error", code: "unauthorized", text: expect.stringContaining("DUET_API_TOKEN") }]);
  });
});

describe("reset", () => {
  it("deletes the room saying who reset it, and says so to everyone, naming the parts that could not be removed", async () => {
    const { deps, seen, used, surface } = setup(207, { cleaned: true, errors: ["sandbox: timeout"] });
    expect(await reset(deps, surface, asker)).toBe("answered");
    expect(seen.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["DELETE /api/rooms/slack-T1-C1?userId=U1"]);
    expect(seen.posted).toEqual([{ kind: "reset", user: "U1", errors: ["sandbox: timeout"] }]);
    expect(used).toEqual([]);
  });
});

describe("help", () => {
  it("shows the help and the problem to the asker only, without the Worker", async () => {
    const { seen, surface } = setup();
    expect(await help(surface, "Unknown command `dance`.")).toBe("answered");
    expect(seen.privately).toEqual([{ kind: "help", problem: "Unknown command `dance`." }]);
    expect(seen.requests).toEqual([]);
  });
});

describe("runCommand", () => {
  it("sends each parsed command through its own flow", async () => {
    const { deps, seen, surface } = setup(200, { messages: [] });
    await runCommand(deps, surface, asker, { kind: "history" });
    await runCommand(deps, surface, asker, { kind: "help" });
    expect(seen.events).toEqual([
      "progress:on",
      "worker:GET /api/rooms/slack-T1-C1/messages",
      "progress:off",
      "private:history",
      // Help asks how the room is set up; the answer here does not fit, so help comes without it.
      "worker:GET /api/info",
      "worker:GET /api/rooms/slack-T1-C1/policy",
      "worker:GET /api/rooms/slack-T1-C1/model",
      "private:help",
    ]);
    expect(seen.privately.at(-1)).toEqual({ kind: "help" });
  });
});

describe("stop", () => {
  it("tells everyone when it stopped a turn, and only the asker when nothing was running", async () => {
    const running = setup(200, { stopped: true });
    expect(await runCommand(running.deps, running.surface, asker, { kind: "stop" })).toBe("answered");
    expect(running.seen.requests).toEqual([{ method: "POST", path: "/api/rooms/slack-T1-C1/stop", body: { userId: "U1" } }]);
    expect(running.seen.posted).toEqual([{ kind: "hint", text: "Stopping Duet's answer." }]);
    const idle = setup(200, { stopped: false });
    await runCommand(idle.deps, idle.surface, asker, { kind: "stop" });
    expect(idle.seen.privately).toMatchObject([{ kind: "hint", text: expect.stringContaining("Nothing to stop") }]);
  });
});
