import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WorkerClient } from "./client.ts";
import { DuetError } from "../wire/errors.ts";
import type { TurnStreamEvent } from "../wire/schemas.ts";
import { encodeSseEvent } from "../wire/sse.ts";

const servers: { server: Server; close(): void }[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

async function serve(handler: (req: IncomingMessage, res: ServerResponse, n: number, body: string) => void): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => handler(req, res, n++, body));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push({
    server,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const sse = (res: ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" });
const answer = { reply: "Listing\n\nOutput (ls):\na", messages: [], runs: [] };
const turn: TurnStreamEvent[] = [
  { event: "text", data: { delta: "Listing" } },
  { event: "run-start", data: { index: 0, cmd: "ls" } },
  { event: "run-end", data: { index: 0, cmd: "ls", exitCode: 0, durationMs: 3, stdout: "a", stderr: "", truncated: false } },
];
const client = (base: string) => new WorkerClient({ baseUrl: base, token: "tok", sleep: async () => {} });

describe("WorkerClient.messageStream", () => {
  it("asks for a stream, hands out each event as it arrives and resolves with the done body", async () => {
    let accept: string | undefined;
    const base = await serve((req, res) => {
      accept = req.headers.accept;
      sse(res);
      for (const e of turn) res.write(encodeSseEvent(e));
      res.write(": keep-alive\n\n");
      res.end(encodeSseEvent({ event: "done", data: { ...answer, stopped: true } }));
    });
    const seen: TurnStreamEvent[] = [];
    const done = await client(base).messageStream("slack-T-C", { text: "ls" }, (e) => seen.push(e));
    expect(accept).toBe("text/event-stream");
    expect(seen).toEqual(turn);
    expect(done).toEqual({ ...answer, stopped: true });
  });

  it("reads an answered stream to its end, so its connection serves the next request", async () => {
    let connections = 0;
    const base = await serve((_req, res, n) => {
      if (n > 0) return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ stopped: false }));
      sse(res);
      res.write(encodeSseEvent({ event: "done", data: answer }));
      // The Worker ends the stream just after its last event, in a write of its own.
      setTimeout(() => res.end(), 20);
    });
    servers.at(-1)!.server.on("connection", () => connections++);
    // What became of the stream's body: read to its end, or cancelled (which closes its connection).
    let fate!: Promise<"read" | "cancelled">;
    const watching: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!res.headers.get("content-type")?.startsWith("text/event-stream")) return res;
      const reader = res.body!.getReader();
      let settle!: (how: "read" | "cancelled") => void;
      fate = new Promise((r) => (settle = r));
      const body = new ReadableStream<Uint8Array>({
        async pull(c) {
          const { done, value } = await reader.read();
          if (!done) return c.enqueue(value);
          settle("read");
          c.close();
        },
        cancel(reason) {
          settle("cancelled");
          return reader.cancel(reason);
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const worker = new WorkerClient({ baseUrl: base, token: "tok", fetch: watching });
    expect(await worker.messageStream("slack-T-C", { text: "hi" }, () => {})).toEqual(answer);
    expect(await fate).toBe("read");
    // undici's pool takes a connection back on the event loop's turn after its answer's end.
    await new Promise((r) => setImmediate(r));
    expect(await worker.stop("slack-T-C", "U1")).toEqual({ stopped: false });
    expect(connections).toBe(1);
  });

  it("throws the error event as a DuetError with its code and retryability", async () => {
    const base = await serve((_req, res) => {
      sse(res);
      res.write(encodeSseEvent(turn[0]));
      res.end(encodeSseEvent({ event: "error", data: { code: "model_timeout", message: "the model did not answer within 30 s", retryable: true } }));
    });
    const err = await client(base).messageStream("slack-T-C", { text: "x" }, () => {}).catch((e) => e);
    expect(err).toBeInstanceOf(DuetError);
    expect(err).toMatchObject({ code: "model_timeout", retryable: true, message: "the model did not answer within 30 s" });
  });

  it("re-joins a keyed turn after a lost connection without handing out an event twice", async () => {
    const base = await serve((_req, res, n) => {
      sse(res);
      if (n === 0) {
        // Two events, then the connection drops mid-turn.
        res.write(encodeSseEvent(turn[0]) + encodeSseEvent(turn[1]));
        setTimeout(() => res.destroy(), 20);
        return;
      }
      // The Worker replays the running turn from its first event.
      for (const e of turn) res.write(encodeSseEvent(e));
      res.end(encodeSseEvent({ event: "done", data: answer }));
    });
    const seen: TurnStreamEvent[] = [];
    expect(await client(base).messageStream("slack-T-C", { text: "ls", idempotencyKey: "Ev1" }, (e) => seen.push(e))).toEqual(answer);
    expect(seen).toEqual(turn);
  });

  it("does not re-send an unkeyed turn whose connection was lost", async () => {
    let calls = 0;
    const base = await serve((_req, res) => {
      calls++;
      sse(res);
      res.write(encodeSseEvent(turn[0]));
      setTimeout(() => res.destroy(), 20);
    });
    await expect(client(base).messageStream("slack-T-C", { text: "ls" }, () => {})).rejects.toMatchObject({ code: "worker_unreachable" });
    expect(calls).toBe(1);
  });

  it("takes a JSON answer from a Worker that does not stream, and a refusal as its error", async () => {
    const base = await serve((_req, res, n) => {
      if (n === 0) return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid request", code: "invalid_request", details: { text: ["Text cannot be empty"] } }));
    });
    const seen: TurnStreamEvent[] = [];
    expect(await client(base).messageStream("slack-T-C", { text: "hi" }, (e) => seen.push(e))).toEqual(answer);
    expect(seen).toEqual([]);
    await expect(client(base).messageStream("slack-T-C", { text: "hi" }, () => {})).rejects.toMatchObject({ code: "invalid_request", details: { text: ["Text cannot be empty"] } });
  });

  it("tells a refusal without Retry-After (a room whose line is full) at once, without asking again", async () => {
    let calls = 0;
    const base = await serve((_req, res) => {
      calls++;
      res.writeHead(429, { "content-type": "application/json" }).end(JSON.stringify({ error: "line full", code: "room_busy", retryable: true }));
    });
    const worker = new WorkerClient({ baseUrl: base, token: "tok", sleep: async () => undefined });
    const answered: boolean[] = [];
    await expect(worker.messageStream("slack-T-C", { text: "hi", idempotencyKey: "Ev1" }, () => {}, { onAnswered: (admitted) => answered.push(admitted) })).rejects.toMatchObject({ code: "room_busy" });
    expect(calls).toBe(1);
    // Heard once, as not admitted: the room does not have the turn.
    expect(answered).toEqual([false]);
  });

  it("asks a full room again after its Retry-After, as a JSON call does", async () => {
    const waits: number[] = [];
    const base = await serve((_req, res, n) => {
      if (n < 2) return void res.writeHead(429, { "content-type": "application/json", "retry-after": "2" }).end(JSON.stringify({ error: "room busy", code: "room_busy", retryable: true }));
      sse(res);
      res.end(encodeSseEvent({ event: "done", data: answer }));
    });
    const worker = new WorkerClient({ baseUrl: base, token: "tok", sleep: async (ms) => void waits.push(ms) });
    expect(await worker.messageStream("slack-T-C", { text: "hi" }, () => {})).toEqual(answer);
    expect(waits).toEqual([2000, 2000]);
  });
});

describe("WorkerClient.stop", () => {
  it("posts who stopped to the room's stop route and returns whether a turn was stopped", async () => {
    let seen: { url?: string; body?: string } = {};
    const base = await serve((req, res, _n, body) => {
      seen = { url: req.url, body };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ stopped: true }));
    });
    expect(await client(base).stop("discord-G-C", "U42")).toEqual({ stopped: true });
    expect(seen).toEqual({ url: "/api/rooms/discord-G-C/stop", body: JSON.stringify({ userId: "U42" }) });
  });
});
