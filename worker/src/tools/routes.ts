import { DuetError, listToolServersQuerySchema, putToolServerSchema, removeToolServerQuerySchema, workspaceOfRoom } from "@duet/shared";
import { Hono } from "hono";
import { validator } from "hono/validator";
import type { z } from "zod";
import { loadConfig } from "../config.ts";
import { STORE_KEY_MIN_CHARS } from "../installations/seal.ts";
import { jsonBody } from "../request.ts";
import type { Vars } from "../vars.ts";
import { serverNameOf, serverUrlOf, workspaceOf } from "./tool-input.ts";
import { toolView } from "./tool-prompt.ts";
import { callbackUri } from "./oauth-callback-routes.ts";
import type { ServerTools, ToolServers } from "./tool-servers.ts";

/**
 * `/api/tools/:workspace` (mounted at `/api/tools`): a workspace's MCP
 * servers. GET lists them with their tools (header names only, never their
 * values; `?userId=` the person who will see it: a server they added that
 * needs OAuth carries its link), PUT `/:name` adds or replaces one (and lists
 * its tools: one that asks for OAuth answers the adder's link), DELETE
 * `/:name` removes it;
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

const listQuery = validator("query", (q) => queryOf(listToolServersQuerySchema, q));

toolRoutes.get("/:workspace", params, listQuery, async (c) => {
  const { workspace } = c.req.valid("param");
  const { userId } = c.req.valid("query");
  const store = toolServers(c.env, workspace);
  const servers = await store.list();
  const viewer = userId ? { userId, redirectUri: callbackUri(c.env, c.req.url) } : undefined;
  // RPC's typing cannot carry a tool's free-form JSON schema (unknown); the store answers ServerTools.
  const listed = (await store.tools(workspace, servers.map((s) => s.name), viewer)) as unknown as ServerTools[];
  return c.json({
    servers: servers.map((s, i) => {
      const { tools, error, needsAuthorization, authorizeUrl } = listed[i];
      return { ...s, tools: tools.map(toolView), ...(error ? { error } : {}), ...(needsAuthorization ? { needsAuthorization } : {}), ...(authorizeUrl ? { authorizeUrl } : {}) };
    }),
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
  const store = toolServers(c.env, workspace);
  const out = await store.put(workspace, name!, url, headers, body.userId ?? null);
  if (from) await c.env.DUET_AGENT.getByName(from).auditToolServer({ kind: "tools-added", server: name!, url, ...(body.userId ? { requestedBy: body.userId } : {}) });
  // Listed at once, as the person who added it: a server that asks for OAuth answers them its link.
  const [probe] = (await store.tools(workspace, [name!], { userId: body.userId ?? null, redirectUri: callbackUri(c.env, c.req.url) })) as unknown as ServerTools[];
  const authorize = probe.needsAuthorization ? (probe.authorizeUrl ? { url: probe.authorizeUrl } : { problem: probe.error }) : undefined;
  return c.json({ ...out, ...(authorize ? { authorize } : {}) }, out.created ? 201 : 200);
});

function queryOf<T>(schema: z.ZodType<T>, q: unknown): T {
  const parsed = schema.safeParse(q);
  if (!parsed.success) throw new DuetError("invalid_request", "invalid request", { details: { query: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) } });
  return parsed.data;
}

const removeQuery = validator("query", (q) => queryOf(removeToolServerQuerySchema, q));

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
