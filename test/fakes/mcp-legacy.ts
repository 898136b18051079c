import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JSONRPCMessage, McpServer, Transport } from "@modelcontextprotocol/server";
import { readBody, sendJson } from "./http.ts";

/**
 * The older HTTP+SSE transport (protocol revision 2024-11-05), hand-written:
 * the 2026 SDK (@modelcontextprotocol/server 2.x) no longer ships an SSE
 * server transport. An SDK `McpServer` still answers each message; this only
 * carries them. GET on the server's path opens the event stream and sends the
 * `endpoint` event naming `{path}/messages?sessionId=…`; each POST there is
 * answered 202, its answer written to the stream as a `message` event.
 */
class SseServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly sessionId = randomUUID();

  constructor(
    private readonly res: ServerResponse,
    private readonly garble: boolean,
  ) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    this.res.write(`event: message\ndata: ${this.garble ? "this is not json-rpc {" : JSON.stringify(message)}\n\n`);
  }

  async close(): Promise<void> {
    this.res.end();
    this.onclose?.();
  }
}

/** A message POSTed to a session: which server path, the Host it was sent to, its method, and the `x-api-key` it carried. */
export interface LegacyPost {
  path: string;
  host: string;
  method: string | null;
  key: string | null;
}

export interface LegacySse {
  /**
   * Opens a session's stream. `endpoint` says what its first event names (by
   * default the session's own message path); `garble` writes every answer as
   * text that is not JSON-RPC.
   */
  open(res: ServerResponse, path: string, server: McpServer, opts?: { endpoint?: (own: string) => string; garble?: boolean }): Promise<void>;
  /** Takes a POST for `{path}/messages`. */
  post(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
  posts: LegacyPost[];
}

export function legacySse(): LegacySse {
  const sessions = new Map<string, { path: string; transport: SseServerTransport }>();
  const posts: LegacyPost[] = [];
  return {
    posts,
    async open(res, path, server, { endpoint = (own: string) => own, garble = false } = {}) {
      const transport = new SseServerTransport(res, garble);
      sessions.set(transport.sessionId, { path, transport });
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.on("close", () => {
        sessions.delete(transport.sessionId);
        void server.close();
      });
      // Connected before the endpoint is named: a client may post at once.
      await server.connect(transport);
      res.write(`event: endpoint\ndata: ${endpoint(`${path}/messages?sessionId=${transport.sessionId}`)}\n\n`);
    },
    async post(req, res, path) {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const session = sessions.get(url.searchParams.get("sessionId") ?? "");
      const body = await readBody(req);
      let message: JSONRPCMessage;
      try {
        message = JSON.parse(body) as JSONRPCMessage;
      } catch {
        return sendJson(res, 400, { error: "not JSON" });
      }
      const key = req.headers["x-api-key"];
      posts.push({ path, host: req.headers.host ?? "", method: "method" in message ? message.method : null, key: typeof key === "string" ? key : null });
      if (!session || session.path !== path) return sendJson(res, 404, { error: "no such session" });
      res.writeHead(202).end("Accepted");
      session.transport.onmessage?.(message);
    },
  };
}
