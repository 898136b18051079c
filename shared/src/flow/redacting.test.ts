import { describe, expect, it } from "vitest";
import { WorkerClient } from "../client/client.ts";
import { applyLiveEvent, emptyLiveAnswer, type LiveAnswer } from "../live/live-answer.ts";
import type { MessageResponse, TurnStreamEvent } from "../wire/schemas.ts";
import { encodeSseEvent } from "../wire/sse.ts";
import { decide } from "./control.ts";
import { ask, runCommand } from "./flow.ts";
import { redacting, redactLive, redactReply } from "./redacting.ts";
import type { Reply } from "./reply.ts";
import type { ChatSurface } from "./surface.ts";

/**
 * The flow redacts everything it hands a surface, the bot's own tokens (bound
 * once in FlowDeps.secrets) as well as the shared patterns. `OWN` matches no
 * pattern: only the bot's list can catch it, so each check below fails when
 * the secrets are not applied.
 */

const OWN = "duet4f9a2c7e1b5d";
const GHP = `ghp_${"a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}`;
const asker = { room: "slack-T1-C1", user: "U1", key: "Ev1" };
const run = { cmd: `echo ${OWN}`, exitCode: 1, stdout: `${OWN}\n`, stderr: `${GHP}\n`, truncated: false, durationMs: 3, error: `failed with ${OWN}` };
const answer: MessageResponse = {
  reply: `Printing ${OWN}.\n\nOutput (echo ${OWN}):\n${OWN}`,
  explanation: `Printing ${OWN}.`,
  messages: [{ role: "user", text: `say ${OWN}`, ts: 1 }],
  runs: [run],
  skipped: [`cat ${OWN}`],
  pending: [{ id: "a1", cmd: `curl -H 'x: ${OWN}'`, expiresAt: 0 }],
};

const leaks = (value: unknown) => JSON.stringify(value).includes(OWN) || JSON.stringify(value).includes(GHP.slice(4));

describe("redactReply", () => {
  it("redacts every text of every reply kind, the bot's own tokens included", () => {
    const schedule = { id: "s1", when: "every 1h", ask: `print ${OWN}`, userId: "U1", createdAt: 0, nextRunAt: 0 };
    const replies: Reply[] = [
      { kind: "answer", answer, question: `what is ${OWN}?`, user: "U1" },
      { kind: "ran", cmd: run.cmd, result: { stdout: run.stdout, stderr: run.stderr, exitCode: 1, success: false, truncated: false, durationMs: 3, error: run.error }, user: "U1" },
      { kind: "history", messages: answer.messages },
      { kind: "audit", entries: [{ at: 0, kind: "auto", cmd: run.cmd }, { at: 0, kind: "scheduled", ask: schedule.ask }], total: 2 },
      { kind: "decided", approval: { id: "a1", cmd: run.cmd, expiresAt: 0, decision: "run", decidedBy: "U2", decidedAt: 1 } },
      { kind: "scheduled", schedule, user: "U1" },
      { kind: "unscheduled", schedule, user: "U1" },
      { kind: "schedules", schedules: [schedule] },
      { kind: "help", problem: `Unknown command ${OWN}` },
      { kind: "hint", text: OWN },
      { kind: "error", text: `failed: ${GHP}` },
      { kind: "refused", text: OWN },
      { kind: "reset", user: "U1", errors: [`sandbox: ${OWN}`] },
    ];
    for (const reply of replies) {
      expect(leaks(reply), reply.kind).toBe(true);
      const shown = redactReply(reply, [OWN]);
      expect(leaks(shown), reply.kind).toBe(false);
      expect(shown.kind).toBe(reply.kind);
    }
  });
});

describe("redactLive", () => {
  const replay = (events: TurnStreamEvent[]): LiveAnswer => events.reduce(applyLiveEvent, emptyLiveAnswer());

  it("holds back the last word until it is whole, so a secret split across deltas never shows in part", () => {
    const first = replay([{ event: "text", data: { delta: `The token is ${GHP.slice(0, 10)}` } }]);
    expect(redactLive(first, []).text).toBe("The token is ");
    const whole = applyLiveEvent(first, { event: "text", data: { delta: `${GHP.slice(10)} ok` } });
    expect(redactLive(whole, []).text).toBe("The token is ghp_[redacted] ");
    expect(redactLive(whole, [], Infinity).text).toBe("The token is ghp_[redacted] ok");
  });

  it("shows the last word once the Worker says a blank follows it, and still holds the first part of a token there", () => {
    const word = replay([{ event: "text", data: { delta: "The token", wordEnd: true } }]);
    expect(redactLive(word, []).text).toBe("The token");
    // The blank may turn out a line break inside the token: its first line waits for the rest.
    const part = applyLiveEvent(word, { event: "text", data: { delta: ` is:\n${GHP.slice(0, 16)}`, wordEnd: true } });
    expect(redactLive(part, []).text).toBe("The token is:\n");
    const own = replay([{ event: "text", data: { delta: `Using ${OWN.slice(0, 12)}`, wordEnd: true } }]);
    expect(redactLive(own, [OWN]).text).toBe("Using ");
    // Without the Worker's word, the last word waits for more text.
    expect(redactLive(applyLiveEvent(word, { event: "text", data: { delta: " is" } }), []).text).toBe("The token ");
  });

  it("redacts the bot's own tokens in the text, each command and its output", () => {
    const a = replay([
      { event: "text", data: { delta: `Using ${OWN} now ` } },
      { event: "run-start", data: { index: 0, cmd: run.cmd } },
      { event: "run-end", data: { index: 0, ...run } },
      { event: "run-start", data: { index: 1, cmd: `cat ${OWN}` } },
    ]);
    expect(leaks(redactLive(a, []))).toBe(true);
    expect(leaks(redactLive(a, [OWN]))).toBe(false);
  });
});

describe("the flow hands surfaces only redacted replies", () => {
  /** A surface recording all it was handed, a live view among it. */
  function recorder() {
    const seen: unknown[] = [];
    const surface: ChatSurface = {
      post: async (reply) => (seen.push(reply), { id: "1" }),
      postPrivate: async (reply) => (seen.push(reply), { id: "2" }),
      edit: async (_ref, reply) => (seen.push(reply), true),
      showProgress: () => async () => {},
      live: (_onPosted, question) => (seen.push(question), { update: (a) => void seen.push(a), finish: async (reply, ended) => (seen.push(reply, ended), { id: "3" }) }),
    };
    return { seen, surface };
  }

  function worker(events: TurnStreamEvent[], json: unknown) {
    const fetch: typeof globalThis.fetch = async (_input, init) =>
      new Headers(init?.headers).get("accept") === "text/event-stream"
        ? new Response(events.map(encodeSseEvent).join(""), { status: 200, headers: { "content-type": "text/event-stream" } })
        : new Response(JSON.stringify(json), { status: 200, headers: { "content-type": "application/json" } });
    return new WorkerClient({ baseUrl: "http://worker.test", token: "t", fetch, retries: 0 });
  }

  const events: TurnStreamEvent[] = [
    // The token arrives in two pieces: neither may show.
    { event: "text", data: { delta: `Printing ${OWN.slice(0, 8)}` } },
    { event: "text", data: { delta: `${OWN.slice(8)} now` } },
    { event: "run-start", data: { index: 0, cmd: run.cmd } },
    { event: "run-end", data: { index: 0, ...run } },
    { event: "done", data: answer },
  ];

  it("a live answer: the question, each snapshot, the final reply and the ended answer", async () => {
    const { seen, surface } = recorder();
    expect(await ask({ worker: worker(events, answer), log: () => {}, secrets: [OWN] }, surface, asker, `print ${OWN}`)).toBe("answered");
    expect(seen.length).toBeGreaterThanOrEqual(6);
    for (const item of seen) expect(leaks(item)).toBe(false);
    expect(JSON.stringify(seen.at(-1))).toContain("[redacted]");
    expect(leaks(await askedWith([], events))).toBe(true);
  });

  it("a reply posted whole, a private one, an edit and a decided command's output", async () => {
    const { seen, surface } = recorder();
    const deps = { worker: worker([], { messages: answer.messages }), log: () => {}, secrets: [OWN], streaming: false };
    await runCommand(deps, surface, asker, { kind: "history" });
    // Asked whole, the answer still comes as the turn's stream ends: its last event.
    await runCommand({ ...deps, worker: worker([{ event: "done", data: answer }], answer) }, surface, asker, { kind: "ask", text: "again" });
    const decision = { approval: { id: "a1", cmd: run.cmd, expiresAt: 0, decision: "run", decidedBy: "U1", decidedAt: 1 }, run };
    await decide({ ...deps, worker: worker([], decision) }, surface, asker, { approvalId: "a1", decision: "run", message: { id: "1" } });
    expect(seen.map((r) => (r as Reply).kind)).toEqual(["history", "answer", "decided", "ran"]);
    for (const item of seen) expect(leaks(item)).toBe(false);
  });

  it("a queue note, through the same wrapper as every other call", async () => {
    const notes: string[] = [];
    const surface: ChatSurface = { ...recorder().surface, queued: async (note) => void notes.push(note) };
    await redacting(surface, [OWN]).queued!(`waiting on ${OWN}`);
    expect(notes).toEqual(["waiting on [redacted]"]);
  });

  /** What a surface is handed when the flow has no secrets: the control that shows the token would reach it. */
  async function askedWith(secrets: string[], evs: TurnStreamEvent[]): Promise<unknown[]> {
    const { seen, surface } = recorder();
    await ask({ worker: worker(evs, answer), log: () => {}, secrets }, surface, asker, "print it");
    return seen;
  }
});
