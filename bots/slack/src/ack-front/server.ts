import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
// bolt's own check (what its HTTPReceiver runs), imported alone: the front's thread loads node:crypto and tsscmp, not all of bolt.
import { verifySlackRequest } from "@slack/bolt/dist/receivers/verify-request.js";
import { FORM, handedRequest } from "./body.ts";
import { PendingAnswers } from "./pending.ts";
import type { Answer, FrontSettings, HandedOver, HandedRequest } from "./protocol.ts";
import { LoopbackProxy } from "./proxy.ts";

/**
 * The ack front's HTTP server. For requests to the events path (where Slack
 * posts events, slash commands and clicks alike) it answers 401 itself when
 * the signature does not verify (bolt's rule: v0 HMAC-SHA256 of
 * `v0:<timestamp>:<body>`, timestamp at most 5 minutes old). A signed
 * `event_callback` it answers 200 at once and hands over to bolt on the main
 * thread. A signed slash command or click it hands over too, holding the
 * request open for the main thread's answer: what bolt's receiver would write
 * for the handler's ack (`PendingAnswers`, with its deadline). Everything else
 * (url_verification and ssl_check; a body bolt cannot read; the OAuth routes;
 * the health routes) goes to bolt's receiver on 127.0.0.1 and is answered
 * with what bolt answers.
 */

/** bolt's HTTPReceiver's default body limit: larger bodies get 413, as from bolt. */
const BODY_LIMIT = 4 * 1024 * 1024;

export interface FrontServer {
  server: Server;
  /** The main thread's answer to a handed-over request. */
  answer(id: number, answer: Answer): void;
  /** Stops the proxy's kept-alive connections to bolt, once the server is closed. */
  close(): void;
}

export function createFrontServer(
  settings: FrontSettings,
  handOver: (message: HandedOver | HandedRequest) => void,
  log: (level: "warn" | "error", line: string) => void,
): FrontServer {
  const proxy = new LoopbackProxy(settings.upstreamPort, (line) => log("error", line));
  const pending = new PendingAnswers((line) => log("warn", line));

  async function onEvents(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrived = performance.now();
    const body = await readBody(req);
    if (body === undefined) {
      log("warn", `Request body exceeded the maximum allowed size (limit: ${BODY_LIMIT} bytes)`);
      res.writeHead(413, { connection: "close" }).end();
      return;
    }
    const text = body.toString("utf8");
    // Slack's ssl_check carries no signature; bolt answers it (and keeps nothing else of its body).
    if (isSslCheck(req, text)) return proxy.forward(req, res, body);
    const refused = signatureProblem(req, text, settings.signingSecret);
    if (refused) {
      log("warn", `Failed to parse and verify the request data: ${refused}`);
      res.writeHead(401).end();
      return;
    }
    const retry = { retryNum: retryNum(req), retryReason: header(req, "x-slack-retry-reason"), spentMs: performance.now() - arrived };
    if (isEventCallback(req, text)) {
      // Handed over before the ack: once Slack has its 200, the event is already the main thread's.
      handOver({ kind: "event", body: text, ...retry });
      res.writeHead(200).end();
      return;
    }
    const what = isForm(req) ? handedRequest(text) : undefined;
    if (what === undefined) return proxy.forward(req, res, body);
    handOver({ kind: "request", id: pending.hold(res, what), body: text, ...retry });
  }

  const server = createServer((req, res) => {
    if (req.method === "POST" && pathOf(req) === settings.eventsPath) {
      onEvents(req, res).catch(() => res.destroy());
      return;
    }
    proxy.forward(req, res);
  });
  return { server, answer: (id, answer) => pending.answer(id, answer), close: () => proxy.close() };
}

function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? "/", "http://localhost").pathname;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === "string" ? value : undefined;
}

function retryNum(req: IncomingMessage): number | undefined {
  const value = header(req, "x-slack-retry-num");
  return value === undefined ? undefined : Number.parseInt(value, 10);
}

const isForm = (req: IncomingMessage) => req.headers["content-type"] === FORM;

function isSslCheck(req: IncomingMessage, text: string): boolean {
  return isForm(req) && new URLSearchParams(text).get("ssl_check") === "1";
}

/** Why the request is not Slack's, or undefined when its signature verifies. */
function signatureProblem(req: IncomingMessage, text: string, signingSecret: string): string | undefined {
  const signature = header(req, "x-slack-signature");
  const timestamp = header(req, "x-slack-request-timestamp");
  if (signature === undefined || timestamp === undefined) return "the x-slack-signature or x-slack-request-timestamp header is missing";
  try {
    verifySlackRequest({ signingSecret, body: text, headers: { "x-slack-signature": signature, "x-slack-request-timestamp": Number(timestamp) } });
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** An Events API delivery (JSON, `type: event_callback`); a body that is not JSON goes to bolt, which answers 400. */
function isEventCallback(req: IncomingMessage, text: string): boolean {
  if (isForm(req)) return false;
  try {
    return (JSON.parse(text) as { type?: unknown } | null)?.type === "event_callback";
  } catch {
    return false;
  }
}

/** The whole body, or undefined past BODY_LIMIT. */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let bytes = 0;
    req.on("data", (part: Buffer) => {
      bytes += part.length;
      if (bytes > BODY_LIMIT) {
        req.removeAllListeners("data");
        req.resume();
        resolve(undefined);
        return;
      }
      parts.push(part);
    });
    req.on("end", () => resolve(Buffer.concat(parts)));
    req.on("error", reject);
  });
}
