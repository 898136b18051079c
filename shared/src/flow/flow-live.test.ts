import { describe, expect, it } from "vitest";
import { WorkerClient } from "../client/client.ts";
import { STREAM_EVENTS_HEADER, STREAM_TEXT_HEADER, type TurnStreamEvent } from "../wire/schemas.ts";
import { ANSWER_COMING_NOTE } from "../words/coming.ts";
import { queuedNote } from "../words/queue.ts";
import { ask } from "./flow.ts";
import type { FlowDeps } from "./types.ts";
import type { Reply } from "./reply.ts";
import type { ChatSurface } from "./surface.ts";
import { encodeSseEvent } from "../wire/sse.ts";
import { AskOrder } from "../bot/ask-order.ts";
import { fakeSurface, answer, asker, type Seen } from "./flow-fixtures.ts";

// Answers that come as they are written, whole, or behind others in the room's line, and their order in one room.

describe("a live ask", () => {
  const events = [
    { event: "text" as const, data: { delta: "Listing " } },
    { event: "text" as const, data: { delta: "files." } },
    { event: "run-start" as const, data: { index: 0, cmd: "ls" } },
    { event: "run-end" as const, data: { index: 0, cmd: "ls", exitCode: 0, durationMs: 3, stdout: "a\n", stderr: "", truncated: false } },
    { event: "done" as const, data: answer },
  ];

  /** A Worker that streams when asked to (Accept: text/event-stream) and answers JSON otherwise, as the real one does. */
  function liveSetup(streaming?: boolean) {
    const fetch: typeof globalThis.fetch = async (_input, init) =>
      new Headers(init?.headers).get("accept") === "text/event-stream"
        ? new Response(events.map(encodeSseEvent).join(""), { status: 200, headers: { "content-type": "text/event-stream" } })
        : new Response(JSON.stringify(answer), { status: 200, headers: { "content-type": "application/json" } });
    const worker = new WorkerClient({ baseUrl: "http://worker.test", token: "t", fetch, retries: 0 });
    const seen: string[] = [];
    const posted: Reply[] = [];
    const surface: ChatSurface = {
      ...fakeSurface({ events: seen, posted, privately: [], requests: [] }),
      live: () => ({
        update: (a) => void seen.push(`update:${a.text}|${a.runs.map((r) => `${r.cmd}:${r.state}`).join(",")}`),
        finish: async (reply) => {
          seen.push(`finish:${reply.kind}`);
          return { id: "live" };
        },
      }),
    };
    return { deps: { worker, log: () => {}, ...(streaming === undefined ? {} : { streaming }) }, surface, seen, posted };
  }

  it("shows progress until the first event, each event as it comes, then the answer in place of the live view", async () => {
    const { deps, surface, seen } = liveSetup();
    expect(await ask(deps, surface, asker, "list")).toBe("answered");
    expect(seen).toEqual([
      "progress:on",
      "progress:off",
      "update:Listing |",
      // The last word waits until it is whole (a secret is only recognised whole); a command's start completes it.
      "update:Listing |",
      "update:Listing files.|ls:running",
      "update:Listing files.|ls:done",
      "finish:answer",
    ]);
  });

  it("posts the answer whole when streaming is off", async () => {
    const { deps, surface, seen, posted } = liveSetup(false);
    expect(await ask(deps, surface, asker, "list")).toBe("answered");
    expect(seen).toEqual(["progress:on", "progress:off", "post:answer"]);
    expect(posted).toEqual([{ kind: "answer", answer, question: "list", user: "U1" }]);
  });
});

describe("an ask answered whole", () => {
  const delivered = { ...asker, deliver: { platform: "slack" as const, place: { channel: "C1", thread: "1.1" } } };

  /** A Worker whose answers to the message route are `message`; every request is recorded with its stream-text header. */
  function wholeSetup(message: () => Promise<Response>) {
    const seen: Seen = { events: [], posted: [], privately: [], requests: [] };
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const url = new URL(String(input));
      seen.requests.push({ method: init?.method ?? "GET", path: `${url.pathname}|${new Headers(init?.headers).get(STREAM_TEXT_HEADER)}`, body: init?.body ? JSON.parse(String(init.body)) : undefined });
      if (url.pathname.endsWith("/message")) return message();
      return new Response(JSON.stringify({ confirmed: true }), { status: 200, headers: { "content-type": "application/json" } });
    };
    const worker = new WorkerClient({ baseUrl: "http://worker.test", token: "t", fetch, retries: 0 });
    return { deps: { worker, log: () => {}, streaming: false }, seen, surface: fakeSurface(seen) };
  }

  it("follows the turn's stream with its text whole, and posts the answer once it is done", async () => {
    const done = [{ event: "text", data: { delta: "Listing." } }, { event: "done", data: answer }] as TurnStreamEvent[];
    const { deps, seen, surface } = wholeSetup(async () => new Response(done.map(encodeSseEvent).join(""), { status: 200, headers: { "content-type": "text/event-stream" } }));
    expect(await ask(deps, surface, asker, "list")).toBe("answered");
    expect(seen.requests.map((r) => r.path)).toEqual(["/api/rooms/slack-T1-C1/message|whole"]);
    expect(seen.events).toEqual(["progress:on", "progress:off", "post:answer"]);
  });

  it("says the answer is coming, and where, when the stream is lost after the room took the turn", async () => {
    // The status line came (the room took the turn), then the connection ended without `done`.
    const { deps, seen, surface } = wholeSetup(async () => new Response("", { status: 200, headers: { "content-type": "text/event-stream" } }));
    expect(await ask(deps, surface, delivered, "list")).toBe("coming");
    expect(seen.posted).toEqual([{ kind: "hint", text: ANSWER_COMING_NOTE }]);
    expect(seen.requests.at(-1)).toEqual({ method: "POST", path: "/api/rooms/slack-T1-C1/deliveries|null", body: { key: "Ev1", messageId: "1", final: false } });
  });

  it("tells the asker to try again when the Worker was never reached", async () => {
    const { deps, seen, surface } = wholeSetup(async () => Promise.reject(new TypeError("fetch failed")));
    expect(await ask(deps, surface, delivered, "list")).toBe("failed");
    expect(seen.posted).toEqual([{ kind: "error", code: "worker_unreachable", text: expect.stringMatching(/can't be reached right now\. Please try again/) }]);
  });
});

describe("a live ask that waits behind others", () => {
  const events: TurnStreamEvent[] = [
    { event: "queued", data: { ahead: 2 } },
    { event: "text", data: { delta: "Listing files." } },
    { event: "done", data: answer },
  ];
  const sse = (evs: TurnStreamEvent[]) => evs.map(encodeSseEvent).join("");

  /** A surface that records the order of what it is asked, with the queue note; `undo` is what takes the note back. */
  function recording(seen: string[], undo = true): ChatSurface {
    return {
      ...fakeSurface({ events: seen, posted: [], privately: [], requests: [] }),
      live: () => ({ update: (a) => void seen.push(`update:${a.text}`), finish: async (reply) => (seen.push(`finish:${reply.kind}`), { id: "live" }) }),
      async queued(note) {
        seen.push(`queued:${note}`);
        return undo ? async () => void seen.push("unqueued") : undefined;
      },
    };
  }

  it("tells the asker their place once, keeps progress on while they wait, and takes the note back when the answer starts", async () => {
    const sent: (string | null)[] = [];
    const fetch: typeof globalThis.fetch = async (_input, init) => {
      sent.push(new Headers(init?.headers).get(STREAM_EVENTS_HEADER));
      return new Response(sse(events), { status: 200, headers: { "content-type": "text/event-stream" } });
    };
    const seen: string[] = [];
    const deps = { worker: new WorkerClient({ baseUrl: "http://worker.test", token: "t", fetch, retries: 0 }), log: () => {} };
    expect(await ask(deps, recording(seen), asker, "list")).toBe("answered");
    // The client asks for the event: a Worker sends it to no other.
    expect(sent).toEqual(["queued"]);
    // The note is taken back as the answer starts (the surface's own call, in flight beside the first update) and before it ends.
    expect(seen.filter((e) => e !== "unqueued")).toEqual(["progress:on", `queued:${queuedNote(2)}`, "progress:off", "update:Listing ", "finish:answer"]);
    expect(seen.slice(-2)).toEqual(["unqueued", "finish:answer"]);
    expect(queuedNote(2)).toBe("⏳ 2 questions are ahead of yours in this conversation. Your answer will come here when it is your turn.");
    expect(queuedNote(1)).toMatch(/^⏳ 1 question is ahead of yours/);
  });

  it("tells them once when the stream is lost after the note and joined again, the Worker handing it out anew", async () => {
    let calls = 0;
    const fetch: typeof globalThis.fetch = async () => {
      calls++;
      // The first connection breaks right after the note; the retry replays the turn from its start, the note first.
      const body = calls === 1 ? sse(events.slice(0, 1)) : sse(events);
      return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
    };
    const seen: string[] = [];
    const worker = new WorkerClient({ baseUrl: "http://worker.test", token: "t", fetch, retries: 1, sleep: async () => {} });
    expect(await ask({ worker, log: () => {} }, recording(seen), asker, "list")).toBe("answered");
    expect(calls).toBe(2);
    expect(seen.filter((e) => e.startsWith("queued:"))).toEqual([`queued:${queuedNote(2)}`]);
  });

  it("gives the asker the answer when the note cannot be shown, and logs why", async () => {
    const fetch: typeof globalThis.fetch = async () => new Response(sse(events), { status: 200, headers: { "content-type": "text/event-stream" } });
    const seen: string[] = [];
    const logged: string[] = [];
    const surface: ChatSurface = { ...recording(seen), queued: async () => Promise.reject(new Error("channel_not_found")) };
    expect(await ask({ worker: new WorkerClient({ baseUrl: "http://worker.test", token: "t", fetch, retries: 0 }), log: (l) => logged.push(l) }, surface, asker, "list")).toBe("answered");
    expect(seen.at(-1)).toBe("finish:answer");
    expect(logged).toEqual(["The queue note in slack-T1-C1 could not be shown: channel_not_found"]);
  });
});

describe("answers in one room", () => {
  it("show in the order asked when the second answer comes back before the first", async () => {
    const sse = (text: string) => [{ event: "text", data: { delta: `${text}.` } }, { event: "done", data: { ...answer, reply: `${text}.` } }].map((e) => encodeSseEvent(e as TurnStreamEvent)).join("");
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    let secondRead!: () => void;
    const secondDone = new Promise<void>((resolve) => (secondRead = resolve));
    const body = (text: string, before: Promise<void> | null, after: (() => void) | null) =>
      new ReadableStream<Uint8Array>({
        async start(controller) {
          await before;
          controller.enqueue(new TextEncoder().encode(sse(text)));
          controller.close();
          after?.();
        },
      });
    // The room answered "first" before "second", but the first answer's connection is slower: it comes back once the second's was read.
    const fetch: typeof globalThis.fetch = async (_input, init) => {
      const text = JSON.parse(String(init?.body)).text as string;
      const stream = text === "first" ? body(text, firstHeld, null) : body(text, null, secondRead);
      return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } });
    };
    const seen: string[] = [];
    const surface = (name: string): ChatSurface => ({
      ...fakeSurface({ events: [], posted: [], privately: [], requests: [] }),
      live: (onPosted) => ({
        update: (a) => void seen.push(`${name} shows ${a.text}`),
        finish: async () => (seen.push(`${name} finished`), onPosted?.({ id: name }), { id: name }),
      }),
    });
    const deps: FlowDeps = { worker: new WorkerClient({ baseUrl: "http://worker.test", token: "t", fetch, retries: 0 }), log: () => {}, order: new AskOrder(60_000, 60_000) };
    const first = ask(deps, surface("first"), { ...asker, key: "Ev1" }, "first");
    const second = ask(deps, surface("second"), { ...asker, key: "Ev2" }, "second");
    await secondDone;
    // The second answer is whole, and unshown while the first has shown nothing.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(seen).toEqual([]);
    releaseFirst();
    expect(await Promise.all([first, second])).toEqual(["answered", "answered"]);
    // Everything the second answer showed came after the first answer was in place.
    expect(seen.findIndex((e) => e.startsWith("second"))).toBe(seen.indexOf("first finished") + 1);
    expect(seen.at(-1)).toBe("second finished");
    expect(deps.order!.unshown).toBe(0);
  });
});
