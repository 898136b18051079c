import { DuetError, putToolServerSchema, removeToolServerQuerySchema, workspaceOfRoom } from "@duet/shared";
import { Hono } from "hono";
import { validator } from "hono/validator";
import { loadConfig } from "../config.ts";
import { STORE_KEY_MIN_CHARS } from "../installations/seal.ts";
import { jsonBody } from "../request.ts";
import type { Vars } from "../vars.ts";
import { serverNameOf, serverUrlOf, workspaceOf } from "./tool-input.ts";
import { toolView } from "./tool-prompt.ts";
import type { ServerTools, ToolServers } from "./tool-servers.ts";

/**
 * `/api/tools/:workspace` (mounted at `/api/tools`): a workspace's MCP
 * servers. GET lists them with their tools (header names only, never their
 * values), PUT `/:name` adds or replaces one, DELETE `/:name` removes it;
 * either, given the room it was done from (`roomId`, in the workspace), is
 * recorded in that room's audit with who did it.
 * Rooms turn a server on or off for themselves under `/api/rooms/:roomId/tools`.
 */

/** A server added to or removed from the workspace, as the room it was done from audits it. */
export interface ToolServerAudit {
  kind: "tools-added" | "tools-removed";
  server: string;
  url?: string;
  requestedBy?: string;
}

/** The rooms, as far as these routes need them: one records a server's adding or removal in its audit. */
interface AuditingRooms {
  getByName(roomId: string): { auditToolServer(entry: ToolServerAudit): Promise<unknown> };
}

type ToolBindings = Vars & { TOOL_SERVERS: DurableObjectNamespace<ToolServers>; DUET_AGENT: AuditingRooms; DUET_STORE_KEY?: string };
type ToolApp = { Bindings: ToolBindings };

export const toolRoutes = new Hono<ToolApp>();

const params = validator("param", (p: { workspace?: string; name?: string }) => ({
  workspace: workspaceOf(p.workspace),
  ...(p.name === undefined ? {} : { name: serverNameOf(p.name) }),
}));

export const toolServers = (env: ToolBindings, workspace: string) => env.TOOL_SERVERS.getByName(workspace);

toolRoutes.get("/:workspace", params, async (c) => {
  const { workspace } = c.req.valid("param");
  const store = toolServers(c.env, workspace);
  const servers = await store.list();
  // RPC's typing cannot carry a tool's free-form JSON schema (unknown); the store answers ServerTools.
  const listed = (await store.tools(workspace, servers.map((s) => s.name))) as unknown as ServerTools[];
  return c.json({
    servers: servers.map((s, i) => ({ ...s, tools: listed[i].tools.map(toolView), ...(listed[i].error ? { error: listed[i].error } : {}) })),
  });
});

toolRoutes.put("/:workspace/:name", params, jsonBody(putToolServerSchema), async (c) => {
  const { workspace, name } = c.req.valid("param");
  const body = c.req.valid("json");
  const url = serverUrlOf(body.url, loadConfig(c.env).DUET_TOOLS_ALLOW_PRIVATE === "1");
  const headers = body.headers ?? {};
  const key = c.env.DUET_STORE_KEY?.trim() ?? "";
  if (Object.keys(headers).length && key.length < STORE_KEY_MIN_CHARS) {
    return c.json({ error: `A tool server's headers are kept sealed, and the Worker has no DUET_STORE_KEY of at least ${STORE_KEY_MIN_CHARS} characters to seal them with: an admin sets one (see docs/configuration.md).`, code: "store_closed" }, 503);
  }
  const from = auditRoom(workspace, body.roomId);
  const out = await toolServers(c.env, workspace).put(workspace, name!, url, headers, body.userId ?? null);
  if (from) await c.env.DUET_AGENT.getByName(from).auditToolServer({ kind: "tools-added", server: name!, url, ...(body.userId ? { requestedBy: body.userId } : {}) });
  return c.json(out, out.created ? 201 : 200);
});

const removeQuery = validator("query", (q) => {
  const parsed = removeToolServerQuerySchema.safeParse(q);
  if (!parsed.success) throw new DuetError("invalid_request", "invalid request", { details: { query: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) } });
  return parsed.data;
});

toolRoutes.delete("/:workspace/:name", params, removeQuery, async (c) => {
  const { workspace, name } = c.req.valid("param");
  const query = c.req.valid("query");
  const from = auditRoom(workspace, query.roomId);
  const deleted = await toolServers(c.env, workspace).remove(name!);
  if (deleted && from) await c.env.DUET_AGENT.getByName(from).auditToolServer({ kind: "tools-removed", server: name!, ...(query.userId ? { requestedBy: query.userId } : {}) });
  return c.json({ deleted });
});

/** The room whose audit records the change: one of this workspace's, or a 400 before anything changes. */
function auditRoom(workspace: string, roomId: string | undefined): string | undefined {
  if (roomId !== undefined && workspaceOfRoom(roomId) !== workspace) throw new DuetError("invalid_request", `room ${roomId} is not in the workspace ${workspace}`);
  return roomId;
}
