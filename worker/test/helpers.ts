import { SELF, env, runInDurableObject } from "cloudflare:test";

export const TOKEN = "test-token-0123456789";
const testEnv = env as unknown as Record<string, string>;

let counter = 0;
/** A room id no other test uses. */
export function freshRoom(prefix = "cli-test"): string {
  return `${prefix}-${Date.now().toString(36)}${(counter++).toString(36)}`;
}

export function api(path: string, init: RequestInit & { json?: unknown; token?: string | null } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.token !== null) headers.set("authorization", `Bearer ${init.token ?? TOKEN}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  return SELF.fetch(`https://duet.test${path}`, { ...init, headers, body });
}

export async function send(roomId: string, text: string, extra: Record<string, unknown> = {}) {
  const res = await api(`/api/rooms/${roomId}/message`, { method: "POST", json: { text, ...extra } });
  return { status: res.status, body: (await res.json()) as any };
}

export async function history(roomId: string) {
  const res = await api(`/api/rooms/${roomId}/messages`);
  return ((await res.json()) as any).messages as { role: string; text: string; userId?: string; ts: number }[];
}

export interface SeenModelCall {
  messages: { role: string; content: string }[];
  /** Whether Duet asked for the answer as it is written. */
  stream: boolean;
  max_tokens?: number;
  temperature?: number;
}

/** Model calls whose last user message contains `marker`. */
export async function modelCallsWith(marker: string): Promise<SeenModelCall[]> {
  const res = await fetch(`${testEnv.FAKE_MODEL_URL}/_calls`);
  const { calls } = (await res.json()) as { calls: SeenModelCall[] };
  return calls.filter((c) => c.messages[c.messages.length - 1]?.content.includes(marker));
}

export async function execCalls(sessionId: string): Promise<{ command: string }[]> {
  const res = await fetch(`${testEnv.FAKE_EXECUTOR_URL}/_calls`);
  const { calls } = (await res.json()) as { calls: { command: string; sessionId: string }[] };
  return calls.filter((c) => c.sessionId === sessionId && c.command !== "true");
}

export async function deletedSessions(): Promise<string[]> {
  const res = await fetch(`${testEnv.FAKE_EXECUTOR_URL}/_calls`);
  return ((await res.json()) as { deleted: string[] }).deleted;
}

export function roomStub(room: string): DurableObjectStub {
  const ns = (env as unknown as { DUET_AGENT: DurableObjectNamespace }).DUET_AGENT;
  return ns.get(ns.idFromName(room));
}

/** Kills one room's Durable Object instance, as an eviction or a crash would; its storage stays. */
export async function killRoom(room: string): Promise<void> {
  await runInDurableObject(roomStub(room), (_instance, state) => {
    state.abort("simulated crash");
  }).catch(() => undefined);
}

/** Polls `check` until it holds (for something that must happen, never to prove that nothing did). */
export async function until(check: () => Promise<boolean>, what: string, withinMs = 5000): Promise<void> {
  for (let i = 0; i < withinMs / 25; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
