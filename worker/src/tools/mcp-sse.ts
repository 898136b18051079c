import { MCP_ANSWER_MAX_BYTES, McpError, McpHttpError, reach, refusal, rpcMessages, rpcNotification, rpcRequest, rpcResult, SseParser, tooBig, type McpEndpoint, type McpSession, type SseEvent } from "./mcp-rpc.ts";

/**
 * The older HTTP+SSE transport (protocol revision 2024-11-05), for servers
 * that refuse streamable HTTP: a GET on the server's URL opens an event
 * stream whose first event, `endpoint`, names where to POST messages; each
 * answer comes back on that stream as a `message` event, found by its id.
 *
 * The endpoint must be on the server's own origin: the address was checked
 * when the server was added (no private addresses), and a server must not be
 * able to point Duet, with the server's headers, anywhere else.
 */
export async function openSseSession(ep: McpEndpoint, signal: AbortSignal, refused: McpHttpError): Promise<McpSession> {
  const res = await reach(ep.url, { method: "GET", headers: { ...ep.headers, accept: "text/event-stream" }, signal });
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    throw refusal(res);
  }
  if (!res.ok || !res.body || !(res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    // Neither transport: the streamable refusal is the clearer line.
    await res.body?.cancel();
    throw refused;
  }
  const events = new EventStream(res.body, signal);
  try {
    const endpoint = endpointOf(await events.next(), ep.url);
    return sseSession(ep, endpoint, events, signal);
  } catch (err) {
    events.close();
    throw err;
  }
}

/** The URL the first event names, on the server's own origin. */
function endpointOf(first: SseEvent | null, serverUrl: string): string {
  if (!first) throw new McpError("its event stream ended before it named an endpoint to post to");
  if (first.event !== "endpoint") throw new McpError("its event stream did not begin with the endpoint to post to");
  let url: URL;
  try {
    url = new URL(first.data.trim(), serverUrl);
  } catch {
    throw new McpError("it named an endpoint to post to that is not a URL");
  }
  if (url.origin !== new URL(serverUrl).origin) throw new McpError("it named an endpoint on another origin, which Duet does not post to");
  return url.href;
}

function sseSession(ep: McpEndpoint, endpoint: string, events: EventStream, signal: AbortSignal): McpSession {
  let next = 1;
  const post = async (body: unknown) => {
    const res = await reach(endpoint, { method: "POST", headers: { ...ep.headers, "content-type": "application/json" }, body: JSON.stringify(body), signal });
    await res.body?.cancel();
    if (!res.ok) throw refusal(res);
  };
  /** Reads the stream until the answer with `id`; other messages (notifications, the server's own requests) are passed over. */
  const answer = async (id: number) => {
    events.budget();
    for (;;) {
      const event = await events.next();
      if (!event) throw new McpError("its event stream ended before it answered");
      if (event.event !== "message") continue;
      const found = rpcResult(rpcMessages(event.data), id);
      if (found) return found.result;
    }
  };
  return {
    async request(method, params) {
      const id = next++;
      // Read while posting: a server may answer the POST only once its answer is written to the stream, which fills if nobody reads it.
      const answered = answer(id);
      answered.catch(() => undefined);
      await post(rpcRequest(id, method, params));
      return answered;
    },
    notify: (method) => post(rpcNotification(method)),
    close: () => events.close(),
  };
}

/** The GET's event stream, read an event at a time; at most MCP_ANSWER_MAX_BYTES between one answer asked and the next. */
class EventStream {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private readonly parser = new SseParser();
  private readonly ready: SseEvent[] = [];
  private bytes = 0;

  constructor(
    body: ReadableStream<Uint8Array>,
    private readonly signal: AbortSignal,
  ) {
    // The fetch's signal also ends a read that waits on a silent server: the body errors, and the timeout is named below.
    this.reader = body.getReader();
  }

  /** Counts from here on, for the next answer. */
  budget(): void {
    this.bytes = 0;
  }

  async next(): Promise<SseEvent | null> {
    while (!this.ready.length) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await this.reader.read();
      } catch (err) {
        if (this.signal.aborted) throw this.signal.reason;
        throw new McpError(`its event stream broke (${(err as Error).message})`);
      }
      if (this.signal.aborted) throw this.signal.reason;
      if (chunk.done) return null;
      this.bytes += chunk.value.byteLength;
      if (this.bytes > MCP_ANSWER_MAX_BYTES) throw tooBig();
      this.ready.push(...this.parser.push(this.decoder.decode(chunk.value, { stream: true })));
    }
    return this.ready.shift()!;
  }

  close(): void {
    this.reader.cancel().catch(() => undefined);
  }
}
