import { WorkerClient } from "../client/client.ts";
import type { MessageResponse } from "../wire/schemas.ts";
import type { FlowDeps } from "./types.ts";
import type { Reply } from "./reply.ts";
import type { ChatSurface } from "./surface.ts";

/**
 * What the flow's tests drive it with: a surface that records what it was asked to show, and the
 * real WorkerClient over a fetch that answers as the Worker does. Only the tests import this file.
 */

export type Seen = { events: string[]; posted: Reply[]; privately: Reply[]; requests: { method: string; path: string; body: unknown; traceparent?: string | null }[] };

export function fakeSurface(seen: Seen, opts: { refuse?: boolean } = {}): ChatSurface {
  return {
    async post(reply) {
      seen.events.push(`post:${reply.kind}`);
      seen.posted.push(reply);
      return opts.refuse ? null : { id: String(seen.posted.length) };
    },
    async postPrivate(reply) {
      seen.events.push(`private:${reply.kind}`);
      seen.privately.push(reply);
      return opts.refuse ? null : { id: "private" };
    },
    async edit() {
      return true;
    },
    showProgress() {
      seen.events.push("progress:on");
      return async () => void seen.events.push("progress:off");
    },
  };
}

export const answer: MessageResponse = { reply: "Listing.", explanation: "Listing.", messages: [], runs: [] };
export const execResult = { stdout: "hi\n", stderr: "", exitCode: 0, success: true, truncated: false, durationMs: 2 };

/** A Worker answering `status` with `body` for every request, and recording each request. */
export function setup(status = 200, body: unknown = answer, opts: { refuse?: boolean } = {}) {
  const seen: Seen = { events: [], posted: [], privately: [], requests: [] };
  const used: string[] = [];
  const logged: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input));
    const sent = init?.body ? JSON.parse(String(init.body)) : undefined;
    seen.requests.push({ method: init?.method ?? "GET", path: `${url.pathname}${url.search}`, body: sent, traceparent: new Headers(init?.headers).get("traceparent") ?? undefined });
    seen.events.push(`worker:${init?.method} ${url.pathname}`);
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  };
  const worker = new WorkerClient({ baseUrl: "http://worker.test", token: "t", fetch, retries: 0 });
  const deps: FlowDeps = { worker, log: (line) => logged.push(line), roomUsed: (room) => used.push(room) };
  return { deps, seen, used, logged, surface: fakeSurface(seen, opts) };
}

export const asker = { room: "slack-T1-C1", user: "U1", key: "Ev1" };
