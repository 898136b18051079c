import { request } from "node:http";
import { listen, readBody } from "../fakes/http.ts";

/**
 * A pass-through between a bot and the Worker that records what the bot asked
 * of it (method, path, JSON body, and the Worker's status once answered), and
 * can hold a matching request so it does not reach the Worker: the barrier for
 * "the bot died after posting but before confirming", or, released, for "what
 * the bot shows while the Worker has not answered yet".
 */

export interface TappedCall {
  method: string;
  path: string;
  body: unknown;
  /** The Worker's status; 0 while held or not yet answered. */
  status: number;
}

export interface WorkerTap {
  url: string;
  calls: TappedCall[];
  /** Requests for which `pred` is true are held from now on: recorded, not forwarded, not answered (until `release`). */
  hold(pred: (call: TappedCall) => boolean): void;
  /** Holds nothing more, and forwards the requests held so far. */
  release(): void;
  close(): Promise<void>;
}

export async function startWorkerTap(workerUrl: string): Promise<WorkerTap> {
  const upstream = new URL(workerUrl);
  const calls: TappedCall[] = [];
  let held: ((call: TappedCall) => boolean) | null = null;
  const waiting: (() => void)[] = [];
  const server = await listen(async (req, res) => {
    const raw = await readBody(req);
    let body: unknown = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = raw;
    }
    const call: TappedCall = { method: req.method ?? "GET", path: req.url ?? "/", body, status: 0 };
    calls.push(call);
    if (held?.(call)) await new Promise<void>((resume) => waiting.push(resume));
    await new Promise<void>((resolve) => {
      const out = request(
        { host: upstream.hostname, port: upstream.port, method: call.method, path: call.path, headers: { ...req.headers, host: upstream.host } },
        (answer) => {
          call.status = answer.statusCode ?? 0;
          res.writeHead(call.status, answer.headers);
          answer.pipe(res);
          answer.on("end", resolve);
          answer.on("error", () => resolve());
        },
      );
      out.on("error", () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
        resolve();
      });
      // A bot that hangs up (it died) ends the Worker's side too, as a direct connection would.
      res.on("close", () => out.destroy());
      out.end(raw);
    });
  });
  return {
    url: server.url,
    calls,
    hold: (pred) => (held = pred),
    release: () => {
      held = null;
      for (const resume of waiting.splice(0)) resume();
    },
    close: () => server.close(),
  };
}
