import { request, type IncomingMessage, type ServerResponse } from "node:http";
import { listen, readBody, type Listening } from "../fakes/http.ts";
import { CLAIM_HEADER } from "@duet/shared";

/**
 * An HTTP pass-through on 127.0.0.1, put between two real parts (bot → Worker,
 * Worker → executor) to see and break what crosses. It forwards each request
 * untouched and records it with the status that came back, unless `intercept`
 * answers it instead:
 *
 *   "http-500"  500 with a JSON error, as a server with a full disk would answer
 *   "not-json"  200 with an HTML error page, as a misrouted proxy would
 *   "reset"     the connection dropped without an answer
 *   "busy"      503 with Retry-After: 1, as the executor answers when its line is full
 *   "hang"      no answer at all until the caller hangs up
 *
 * When the target is down, the connection is dropped too, so the caller sees
 * a host that cannot be reached. When the caller hangs up mid-request, the
 * pass-through hangs up on the target, as a direct connection would.
 *
 * Each forwarded request gets a connection of its own: a pooled keep-alive
 * connection can be closed by the target just as it is reused, and that reset
 * would be the pass-through's fault, not a fault of what it sits between.
 */

export type Fault = "http-500" | "not-json" | "reset" | "busy" | "hang";

export interface Crossing {
  method: string;
  path: string;
  /** The JSON body, when it was JSON. */
  body: Record<string, unknown> | null;
  /** The answer's status; 0 until it came back, or when the connection was dropped. */
  status: number;
  /** Why the target gave no answer, when it did not. */
  error?: string;
  /** The answer's body, when it was JSON. */
  answer?: unknown;
}

export interface PassThrough extends Listening {
  crossings: Crossing[];
}

export async function startPassThrough(target: () => string | null, intercept?: (c: Crossing) => Fault | null): Promise<PassThrough> {
  const crossings: Crossing[] = [];

  const forward = (req: IncomingMessage, res: ServerResponse, raw: string, crossing: Crossing) =>
    new Promise<void>((resolve) => {
      const base = target();
      if (!base) {
        crossing.error = "target down";
        req.socket.destroy();
        return resolve();
      }
      // Identity: the body goes back as it came, and no Content-Encoding is passed on.
      const headers: Record<string, string> = { "accept-encoding": "identity" };
      // The claim names the delivery asking (a replica), as a proxy passes it on; Accept stays behind, so every answer crosses whole as JSON.
      for (const name of ["authorization", "content-type", CLAIM_HEADER]) if (req.headers[name]) headers[name] = String(req.headers[name]);
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      if (hasBody) headers["content-length"] = String(Buffer.byteLength(raw));
      const upstream = request(`${base}${req.url}`, { method: req.method, headers, agent: false }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (c: Buffer) => chunks.push(c));
        answer.on("error", drop);
        answer.on("end", () => {
          crossing.status = answer.statusCode ?? 0;
          if (String(answer.headers["content-type"] ?? "").includes("json")) {
            try {
              crossing.answer = JSON.parse(Buffer.concat(chunks).toString("utf8"));
            } catch {
              // Not JSON after all: left out.
            }
          }
          const out: Record<string, string> = { "content-type": String(answer.headers["content-type"] ?? "application/json") };
          if (answer.headers["retry-after"]) out["retry-after"] = String(answer.headers["retry-after"]);
          res.writeHead(crossing.status, out);
          res.end(Buffer.concat(chunks));
          resolve();
        });
      });
      function drop(err: Error) {
        crossing.error ??= err.message;
        req.socket.destroy();
        resolve();
      }
      upstream.on("error", drop);
      // The caller hung up before the answer: hang up on the target too.
      res.once("close", () => {
        if (!res.writableFinished) upstream.destroy(new Error("the caller hung up"));
      });
      upstream.end(hasBody ? raw : undefined);
    });

  const listening = await listen(async (req, res) => {
    const raw = await readBody(req);
    let body: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed && typeof parsed === "object") body = parsed as Record<string, unknown>;
    } catch {
      // Not JSON: passed on as it is.
    }
    const crossing: Crossing = { method: req.method ?? "GET", path: new URL(req.url ?? "/", "http://x").pathname, body, status: 0 };
    const fault = intercept?.(crossing) ?? null;
    if (fault === "reset") return void req.socket.destroy();
    if (fault === "hang") return;
    if (fault === "http-500") {
      res.writeHead(500, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ error: "executor failed: ENOSPC: no space left on device" }));
    }
    if (fault === "busy") {
      res.writeHead(503, { "content-type": "application/json", "retry-after": "1" });
      return void res.end(JSON.stringify({ error: "executor busy: 1 commands running and 0 waiting" }));
    }
    if (fault === "not-json") {
      res.writeHead(200, { "content-type": "text/html" });
      return void res.end("<html><body>502 Bad Gateway</body></html>");
    }
    crossings.push(crossing);
    await forward(req, res, raw, crossing);
  });
  return { ...listening, crossings };
}
