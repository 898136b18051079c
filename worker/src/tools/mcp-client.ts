/**
 * A small MCP client over streamable HTTP (JSON-RPC 2.0 in POST bodies, the
 * answer as JSON or as a server-sent event stream), protocol revision
 * 2025-06-18, which servers of the 2026 SDK still serve. Each operation
 * opens its own session (initialize, initialized, the request), so nothing
 * about a server is kept between turns, and a Worker restart leaves no
 * half-open session behind.
 *
 * Why not the `agents` SDK's MCPClientManager: it keeps one set of servers per
 * Agent (here: per room) with their headers in that Agent's SQLite in the
 * clear, where Duet keeps servers per workspace with their headers sealed, and
 * calls them from the workspace's store (OAuth too: mcp-oauth.ts, with the
 * tokens sealed there); and its reconnection machinery is more than a call
 * per tool needs.
 */

export const MCP_PROTOCOL_VERSION = "2025-06-18";
/** An answer past this is not read: a tool's result is cut far below it anyway (RUN_OUTPUT_MAX_BYTES). */
export const MCP_ANSWER_MAX_BYTES = 4 * 1024 * 1024;
/** Pages of tools/list read at most: a server listing more pages is cut there. */
const LIST_PAGES_MAX = 5;

export interface McpEndpoint {
  url: string;
  headers: Record<string, string>;
}

/** A fault talking to a server, with the line a person reads. */
export class McpError extends Error {}

/** The server refused Duet's credentials (HTTP 401): `challenge` is its WWW-Authenticate, which names where OAuth starts. */
export class McpAuthRequired extends McpError {
  constructor(readonly challenge: string) {
    super("it asks to be authorized (HTTP 401)");
  }
}

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

interface Session {
  id: string | null;
  next: number;
}

async function post(ep: McpEndpoint, session: Session, body: unknown, signal: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = {
    ...ep.headers,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MCP_PROTOCOL_VERSION,
  };
  if (session.id) headers["mcp-session-id"] = session.id;
  try {
    return await fetch(ep.url, { method: "POST", headers, body: JSON.stringify(body), signal, redirect: "manual" });
  } catch (err) {
    // A timeout (or stop) is the caller's to word: it knows how long it waited.
    if (signal.aborted) throw signal.reason;
    throw new McpError(`could not reach it (${(err as Error).message})`);
  }
}

/** The body's text, refused with `tooLong()` once it passes `maxBytes` (the rest is never read). */
export async function boundedText(res: Response, maxBytes = MCP_ANSWER_MAX_BYTES, tooLong = () => new McpError(`it answered more than ${maxBytes / 1024 / 1024} MB, which Duet does not read`)): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLong();
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** The JSON-RPC answer with `id` in a JSON body or an event stream. */
function answerOf(text: string, contentType: string, id: number): { result?: unknown; error?: { code?: number; message?: string } } {
  const messages: unknown[] = [];
  const parse = (s: string) => {
    try {
      messages.push(JSON.parse(s));
    } catch {
      throw new McpError("it answered something that is not JSON-RPC");
    }
  };
  if (contentType.includes("text/event-stream")) {
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).replace(/^ /, ""))
        .join("\n");
      if (data) parse(data);
    }
  } else {
    parse(text);
  }
  const all = messages.flatMap((m) => (Array.isArray(m) ? m : [m]));
  const found = all.find((m): m is Record<string, unknown> => typeof m === "object" && m !== null && (m as { id?: unknown }).id === id);
  if (!found || found.jsonrpc !== "2.0" || (!("result" in found) && !("error" in found))) throw new McpError("it answered something that is not JSON-RPC");
  return found as { result?: unknown; error?: { code?: number; message?: string } };
}

async function request(ep: McpEndpoint, session: Session, method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
  const id = session.next++;
  const res = await post(ep, session, { jsonrpc: "2.0", id, method, params }, signal);
  if (res.status === 401) {
    await res.body?.cancel();
    throw new McpAuthRequired(res.headers.get("www-authenticate") ?? "");
  }
  if (res.status === 403) {
    await res.body?.cancel();
    throw new McpError("it refused Duet's credentials (HTTP 403)");
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new McpError(`it answered HTTP ${res.status}`);
  }
  const sessionId = res.headers.get("mcp-session-id");
  if (sessionId && !session.id) session.id = sessionId;
  const answer = answerOf(await boundedText(res), res.headers.get("content-type") ?? "", id);
  if (answer.error) throw new McpError(`it answered an error: ${String(answer.error.message ?? answer.error.code ?? "unknown").slice(0, 300)}`);
  return answer.result;
}

/** A session opened the way the protocol asks: initialize, then the initialized notification. */
async function open(ep: McpEndpoint, signal: AbortSignal): Promise<Session> {
  const session: Session = { id: null, next: 1 };
  await request(ep, session, "initialize", { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "duet", version: "1" } }, signal);
  const res = await post(ep, session, { jsonrpc: "2.0", method: "notifications/initialized" }, signal);
  await res.body?.cancel();
  return session;
}

/** The server's tools, up to LIST_PAGES_MAX pages. */
export async function listTools(ep: McpEndpoint, signal: AbortSignal): Promise<McpTool[]> {
  const session = await open(ep, signal);
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < LIST_PAGES_MAX; page++) {
    const result = (await request(ep, session, "tools/list", cursor ? { cursor } : {}, signal)) as { tools?: unknown; nextCursor?: unknown } | null;
    if (!result || !Array.isArray(result.tools)) throw new McpError("it answered a tool list that is not one");
    for (const t of result.tools) if (t && typeof t === "object" && typeof (t as McpTool).name === "string") tools.push(t as McpTool);
    if (typeof result.nextCursor !== "string" || !result.nextCursor) break;
    cursor = result.nextCursor;
  }
  return tools;
}

export async function callTool(ep: McpEndpoint, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
  const session = await open(ep, signal);
  const result = await request(ep, session, "tools/call", { name: tool, arguments: args }, signal);
  if (!result || typeof result !== "object") throw new McpError("it answered a tool result that is not one");
  return result as McpCallResult;
}

/** A result as text: its text parts joined, other parts (and structured content alone) as JSON. */
export function resultText(result: McpCallResult): string {
  const parts = Array.isArray(result.content) ? result.content : [];
  const text = parts.map((p) => (p.type === "text" && typeof p.text === "string" ? p.text : JSON.stringify(p))).join("\n");
  if (text) return text;
  return result.structuredContent === undefined ? "" : JSON.stringify(result.structuredContent);
}
