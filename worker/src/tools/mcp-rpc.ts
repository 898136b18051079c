/**
 * What both of Duet's MCP transports share: JSON-RPC 2.0 messages built and
 * read, server-sent events read as they arrive, bodies read within a cap, and
 * the line a person reads for each fault. Streamable HTTP (mcp-client.ts) and
 * the older HTTP+SSE transport (mcp-sse.ts) differ only in where the messages
 * travel.
 */

/** An answer past this is not read: a tool's result is cut far below it anyway (RUN_OUTPUT_MAX_BYTES). */
export const MCP_ANSWER_MAX_BYTES = 4 * 1024 * 1024;

/** A fault talking to a server, with the line a person reads. */
export class McpError extends Error {}

/** A server's refusal by HTTP status: the status decides whether the older transport is tried. */
export class McpHttpError extends McpError {
  constructor(
    readonly status: number,
    line = status === 403 ? "it refused Duet's credentials (HTTP 403)" : `it answered HTTP ${status}`,
  ) {
    super(line);
  }
}

/** The server asks to be authorized (HTTP 401): `challenge` is its WWW-Authenticate, which names where OAuth starts (mcp-oauth.ts). */
export class McpAuthRequired extends McpHttpError {
  constructor(readonly challenge: string) {
    super(401, "it asks to be authorized (HTTP 401)");
  }
}

/** The fault a refused response is: a 401 with its challenge, else its status. */
export function refusal(res: Response): McpHttpError {
  return res.status === 401 ? new McpAuthRequired(res.headers.get("www-authenticate") ?? "") : new McpHttpError(res.status);
}

/** A server's address and the headers each request to it carries. */
export interface McpEndpoint {
  url: string;
  headers: Record<string, string>;
}

/** One MCP connection, over whichever transport the server speaks. */
export interface McpSession {
  /** Sends a request and waits for the answer with its id: the result, or an McpError with the server's error. */
  request(method: string, params: unknown): Promise<unknown>;
  notify(method: string): Promise<void>;
  /** Lets go of what the session holds open (the older transport's event stream). */
  close(): void;
}

interface RpcAnswer {
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

export function rpcRequest(id: number, method: string, params: unknown) {
  return { jsonrpc: "2.0", id, method, params };
}

export function rpcNotification(method: string) {
  return { jsonrpc: "2.0", method };
}

const notJsonRpc = () => new McpError("it answered something that is not JSON-RPC");

/** The messages in one JSON text (a message or a batch of them). */
export function rpcMessages(text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw notJsonRpc();
  }
  return Array.isArray(parsed) ? parsed : [parsed];
}

/**
 * The result of the answer with `id` among `messages`; undefined when none has
 * that id (a notification, or a request of the server's, which Duet ignores).
 */
export function rpcResult(messages: unknown[], id: number): { result: unknown } | undefined {
  const found = messages.find((m): m is RpcAnswer & Record<string, unknown> => typeof m === "object" && m !== null && (m as { id?: unknown }).id === id);
  if (!found) return undefined;
  if (found.jsonrpc !== "2.0" || (!("result" in found) && !("error" in found))) throw notJsonRpc();
  if (found.error) throw new McpError(`it answered an error: ${String(found.error.message ?? found.error.code ?? "unknown").slice(0, 300)}`);
  return { result: found.result };
}

export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Server-sent events read as their text arrives (lines end in CRLF, LF or
 * CR, which may be split across chunks); an event is dispatched at its blank
 * line, and one with no data is not dispatched at all, as the format says.
 */
export class SseParser {
  /** The pieces of a line not ended yet (kept apart, so a long line arriving in many chunks is joined once). */
  private partial: string[] = [];
  /** The last chunk ended in CR: an LF first in the next one belongs to it. */
  private afterCr = false;
  private event = "";
  private data: string[] = [];

  push(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    if (!text) return out;
    let start = this.afterCr && text.charCodeAt(0) === 10 ? 1 : 0;
    this.afterCr = false;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.partial.push(text.slice(start, i));
      this.line(this.partial.join(""), out);
      this.partial = [];
      if (c === 13 && i + 1 === text.length) this.afterCr = true;
      else if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
    }
    if (start < text.length) this.partial.push(text.slice(start));
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === "") {
      if (this.data.length) out.push({ event: this.event || "message", data: this.data.join("\n") });
      this.event = "";
      this.data = [];
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
  }
}

/** The body's text, refused with `tooLong()` once it passes `maxBytes` (the rest is never read). */
export async function boundedText(res: Response, maxBytes = MCP_ANSWER_MAX_BYTES, tooLong = tooBig): Promise<string> {
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

export const tooBig = () => new McpError(`it answered more than ${MCP_ANSWER_MAX_BYTES / 1024 / 1024} MB, which Duet does not read`);

/** A fetch to a server; a failure to reach it is an McpError, a timeout or stop stays the signal's reason (the caller words it: it knows how long it waited). */
export async function reach(url: string, init: RequestInit & { signal: AbortSignal }): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: "manual" });
  } catch (err) {
    if (init.signal.aborted) throw init.signal.reason;
    throw new McpError(`could not reach it (${(err as Error).message})`);
  }
}
