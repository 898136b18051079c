import { Agent, type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from "node:http";

/**
 * A loopback proxy to bolt's HTTP receiver: the request as it came (method,
 * path, headers, body), the answer as bolt gave it (status, headers, body).
 * Connection-level headers belong to each hop and are not copied.
 */

const HOP_BY_HOP = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer"];

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out = { ...headers };
  for (const h of HOP_BY_HOP) delete out[h];
  return out;
}

export class LoopbackProxy {
  /** Kept-alive connections to bolt: a slash command does not pay a TCP handshake. */
  private readonly agent = new Agent({ keepAlive: true });

  constructor(
    private readonly port: number,
    private readonly fail: (line: string) => void,
  ) {}

  /** `body`: the request's body when the front has already read it; else it is streamed through. */
  forward(req: IncomingMessage, res: ServerResponse, body?: Buffer): void {
    const headers = endToEnd(req.headers);
    if (body) headers["content-length"] = String(body.length);
    const upstream = request({ host: "127.0.0.1", port: this.port, method: req.method, path: req.url, headers, agent: this.agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
    });
    let hungUp = false;
    upstream.on("error", (err) => {
      if (hungUp) return;
      this.fail(`The ack front could not pass ${req.method} ${req.url} to the bot: ${err.message}`);
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end("The bot is not answering; try again shortly.");
      else res.destroy();
    });
    // A caller that hangs up takes its request to bolt with it.
    res.on("close", () => {
      if (res.writableFinished) return;
      hungUp = true;
      upstream.destroy();
    });
    if (body) upstream.end(body);
    else req.pipe(upstream);
  }

  close(): void {
    this.agent.destroy();
  }
}
