import { env } from "cloudflare:test";
import { expect } from "vitest";
import { api, modelCallsWith } from "./helpers.ts";
import type { LegacyPost } from "../../test/fakes/mcp-legacy.ts";

/** The fake MCP servers (test/fakes/mcp.ts), one path each. */
export const MCP = (env as unknown as Record<string, string>).FAKE_MCP_URL;

let n = 0;
/** A workspace no other test uses, and two rooms in it. */
export function workspace() {
  const ws = `cli-tools${Date.now().toString(36)}${(n++).toString(36)}`;
  return { ws, roomA: `${ws}-a`, roomB: `${ws}-b` };
}

export async function addServer(ws: string, name: string, path: string, headers?: Record<string, string>) {
  const res = await api(`/api/tools/${ws}/${name}`, { method: "PUT", json: { url: `${MCP}${path}`, ...(headers ? { headers } : {}), userId: "U-admin" } });
  expect(res.status).toBe(201);
}

export async function enable(room: string, name: string) {
  const res = await api(`/api/rooms/${room}/tools/${name}`, { method: "PUT", json: { userId: "U-admin" } });
  expect(res.status).toBe(200);
}

interface SeenCall {
  path: string;
  tool: string;
  args: unknown;
}

/** Every tools/call the fake servers answered, in the order they arrived, and every message POSTed to an HTTP+SSE session. */
export async function mcpSeen(): Promise<{ calls: SeenCall[]; posts: LegacyPost[] }> {
  return (await (await fetch(`${MCP}/_calls`)).json()) as { calls: SeenCall[]; posts: LegacyPost[] };
}

/** The arguments of each call of `tool` the fake servers answered. */
export async function mcpCalls(tool: string): Promise<unknown[]> {
  return (await mcpSeen()).calls.filter((c) => c.tool === tool).map((c) => c.args);
}

/** The system prompt the fake model was given for the question holding `marker`. */
export async function systemPromptFor(marker: string): Promise<string> {
  const [call] = await modelCallsWith(marker);
  return call.messages[0].content;
}
