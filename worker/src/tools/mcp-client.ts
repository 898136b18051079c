import { boundedText, McpError, McpHttpError, reach, refusal, rpcMessages, rpcNotification, rpcRequest, rpcResult, SseParser, type McpEndpoint, type McpSession } from "./mcp-rpc.ts";
import { openSseSession } from "./mcp-sse.ts";

/**
 * A small MCP client over streamable HTTP (JSON-RPC 2.0 in POST bodies, the
 * answer as JSON or as a server-sent event stream), protocol revision
 * 2025-06-18, which servers of the 2026 SDK still serve; a server that refuses
 * that with 400, 404 or 405 is spoken to over the older HTTP+SSE transport
 * instead (mcp-sse.ts), as the protocol's backwards-compatibility rules say.
 * Each operation opens its own session (initialize, initialized, the
 * request), so nothing about a server is kept between turns, and a Worker
 * restart leaves no half-open session behind.
 *
 * Why not the `agents` SDK's MCPClientManager: it keeps one set of servers per
 * Agent (here: per room) with their headers in that Agent's SQLite in the
 * clear, where Duet keeps servers per workspace with their headers sealed, and
 * calls them from the workspace's store (OAuth too: mcp-oauth.ts, with the
 * tokens sealed there); and its reconnection machinery is more than a call
 * per tool needs.
 */

export const MCP_PROTOCOL_VERSION = "2025-06-18";
/** The revision the HTTP+SSE transport belongs to, offered to a server that speaks only that. */
export const MCP_LEGACY_PROTOCOL_VERSION = "2024-11-05";
/** The refusals of a streamable-HTTP initialize that mean "try the older transport". */
const LEGACY_STATUSES = new Set([400, 404, 405]);
/** Pages of tools/list read at most: a server listing more pages is cut there. */
const LIST_PAGES_MAX = 5;

export interface McpTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
}

export interface McpCallResult {
  content?: { type: string; text?: string; [k: string]: unknown }[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** A streamable-HTTP session: each message a POST to the server's one URL, the answer in that POST's body. */
function streamableSession(ep: McpEndpoint, signal: AbortSignal): McpSession {
  let sessionId: string | null = null;
  let next = 1;
  const post = (body: unknown) => {
    const headers: Record<string, string> = {
      ...ep.headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MCP_PROTOCOL_VERSION,
    };
    if (sessionId) headers["mcp-session-id"] = sessionId;
    return reach(ep.url, { method: "POST", headers, body: JSON.stringify(body), signal });
  };
  return {
    async request(method, params) {
      const id = next++;
      const res = await post(rpcRequest(id, method, params));
      if (!res.ok) {
        await res.body?.cancel();
        throw refusal(res);
      }
      sessionId ??= res.headers.get("mcp-session-id");
      const text = await boundedText(res);
      const messages = (res.headers.get("content-type") ?? "").includes("text/event-stream")
        ? new SseParser().push(`${text}\n\n`).flatMap((e) => rpcMessages(e.data))
        : rpcMessages(text);
      const answer = rpcResult(messages, id);
      if (!answer) throw new McpError("it answered something that is not JSON-RPC");
      return answer.result;
    },
    async notify(method) {
      const res = await post(rpcNotification(method));
      await res.body?.cancel();
    },
    close() {},
  };
}

async function handshake(session: McpSession, version: string): Promise<void> {
  await session.request("initialize", { protocolVersion: version, capabilities: {}, clientInfo: { name: "duet", version: "1" } });
  await session.notify("notifications/initialized");
}

/** A session opened the way the protocol asks: initialize, then the initialized notification; over HTTP+SSE when streamable HTTP is refused. */
async function open(ep: McpEndpoint, signal: AbortSignal): Promise<McpSession> {
  const streamable = streamableSession(ep, signal);
  try {
    await handshake(streamable, MCP_PROTOCOL_VERSION);
    return streamable;
  } catch (err) {
    if (!(err instanceof McpHttpError && LEGACY_STATUSES.has(err.status))) throw err;
    const legacy = await openSseSession(ep, signal, err);
    try {
      await handshake(legacy, MCP_LEGACY_PROTOCOL_VERSION);
    } catch (failed) {
      legacy.close();
      throw failed;
    }
    return legacy;
  }
}

/** The server's tools, up to LIST_PAGES_MAX pages. */
export async function listTools(ep: McpEndpoint, signal: AbortSignal): Promise<McpTool[]> {
  const session = await open(ep, signal);
  try {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < LIST_PAGES_MAX; page++) {
      const result = (await session.request("tools/list", cursor ? { cursor } : {})) as { tools?: unknown; nextCursor?: unknown } | null;
      if (!result || !Array.isArray(result.tools)) throw new McpError("it answered a tool list that is not one");
      for (const t of result.tools) if (t && typeof t === "object" && typeof (t as McpTool).name === "string") tools.push(t as McpTool);
      if (typeof result.nextCursor !== "string" || !result.nextCursor) break;
      cursor = result.nextCursor;
    }
    return tools;
  } finally {
    session.close();
  }
}

export async function callTool(ep: McpEndpoint, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
  const session = await open(ep, signal);
  try {
    const result = await session.request("tools/call", { name: tool, arguments: args });
    if (!result || typeof result !== "object") throw new McpError("it answered a tool result that is not one");
    return result as McpCallResult;
  } finally {
    session.close();
  }
}

/** A result as text: its text parts joined, other parts (and structured content alone) as JSON. */
export function resultText(result: McpCallResult): string {
  const parts = Array.isArray(result.content) ? result.content : [];
  const text = parts.map((p) => (p.type === "text" && typeof p.text === "string" ? p.text : JSON.stringify(p))).join("\n");
  if (text) return text;
  return result.structuredContent === undefined ? "" : JSON.stringify(result.structuredContent);
}
