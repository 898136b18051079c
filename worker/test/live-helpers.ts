import { env } from "cloudflare:test";
import { SseDecoder, type TurnStreamEvent } from "@duet/shared";
import { api } from "./helpers.ts";

const testEnv = env as unknown as Record<string, string>;
let n = 0;
/** A name no other test uses, for the fake model's holds, hangs and rate limits. */
export const unique = (what: string) => `${what}-${Date.now().toString(36)}-${n++}`;

/** A turn asked for live (`headers` besides Accept): its events can be read one at a time, or to the end. */
export async function stream(roomId: string, text: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await api(`/api/rooms/${roomId}/message`, { method: "POST", json: { text, ...extra }, headers: { accept: "text/event-stream", ...headers } });
  const reader = res.body!.getReader();
  const decoder = new SseDecoder();
  const bytes = new TextDecoder();
  const queued: TurnStreamEvent[] = [];
  const seen: TurnStreamEvent[] = [];
  let ended = false;
  const next = async (): Promise<TurnStreamEvent | null> => {
    while (queued.length === 0 && !ended) {
      const { value, done } = await reader.read();
      if (done) ended = true;
      else queued.push(...decoder.push(bytes.decode(value, { stream: true })));
    }
    const e = queued.shift() ?? null;
    if (e) seen.push(e);
    return e;
  };
  return {
    res,
    seen,
    next,
    /** Reads until an event of `name` (returned); a stream that ends first fails the test, since what follows counts on the event. */
    async until<K extends TurnStreamEvent["event"]>(name: K): Promise<Extract<TurnStreamEvent, { event: K }>> {
      for (let e = await next(); e; e = await next()) if (e.event === name) return e as Extract<TurnStreamEvent, { event: K }>;
      throw new Error(`the stream ended before a "${name}" event: ${JSON.stringify(seen)}`);
    },
    async rest(): Promise<TurnStreamEvent[]> {
      while (await next());
      return seen;
    },
    hangUp: () => reader.cancel().catch(() => undefined),
  };
}

export async function release(name: string): Promise<void> {
  await fetch(`${testEnv.FAKE_MODEL_URL}/_release/${name}`, { method: "POST" });
}

/** Waits until the fake model saw the request named `name` aborted (false after a while). */
export async function modelAborted(name: string): Promise<boolean> {
  return ((await (await fetch(`${testEnv.FAKE_MODEL_URL}/_aborted/${name}`)).json()) as { aborted: boolean }).aborted;
}

export async function killedCommands(): Promise<string[]> {
  return ((await (await fetch(`${testEnv.FAKE_EXECUTOR_URL}/_calls`)).json()) as { killed: string[] }).killed;
}

export async function stop(roomId: string, userId?: string) {
  const res = await api(`/api/rooms/${roomId}/stop`, { method: "POST", json: userId ? { userId } : {} });
  return { status: res.status, body: (await res.json()) as { stopped: boolean } };
}

/** A history or answer without its times, to compare two turns. */
export function withoutTimes<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (k, v) => (k === "ts" || k === "durationMs" ? undefined : v)));
}
