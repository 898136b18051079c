import type { IncomingMessage, ServerResponse } from "node:http";
import { snowflake } from "./payloads.ts";

/**
 * Discord's CDN for files people attach: each attachment's signed URL serves
 * its bytes (`/cdn/attachments/...`), and `redirect-elsewhere` sends the
 * client to another host (this server under `localhost`), recording what
 * arrives there. Every fetch is recorded.
 */

export interface CdnFile {
  id: string;
  name: string;
  content: Buffer;
  contentType: string;
  mode: "normal" | "redirect-elsewhere";
}

export class FakeCdn {
  private readonly files = new Map<string, CdnFile>();
  readonly fetched: string[] = [];
  readonly elsewhere: string[] = [];

  constructor(private readonly base: () => string) {}

  /** An attachment as a message or an interaction's `resolved.attachments` carries it. */
  attach(name: string, content: Buffer | string, o: { contentType?: string; mode?: CdnFile["mode"] } = {}): Record<string, unknown> {
    const id = snowflake();
    const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
    this.files.set(id, { id, name, content: bytes, contentType: o.contentType ?? "text/csv", mode: o.mode ?? "normal" });
    const url = `${this.base()}/cdn/attachments/${id}/${encodeURIComponent(name)}?ex=1&is=1&hm=signed`;
    return { id, filename: name, size: bytes.length, url, proxy_url: url, content_type: o.contentType ?? "text/csv" };
  }

  /** Serves the CDN's paths; false for anything else. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? "/", "http://x");
    if (req.headers.host?.startsWith("localhost")) {
      this.elsewhere.push(url.pathname);
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end("bytes from elsewhere");
      return true;
    }
    const m = /^\/cdn\/attachments\/(\d+)\//.exec(url.pathname);
    if (!m) return false;
    this.fetched.push(m[1]);
    const file = this.files.get(m[1]);
    if (!file) {
      res.writeHead(404).end();
    } else if (file.mode === "redirect-elsewhere") {
      res.writeHead(302, { location: `${this.base().replace("127.0.0.1", "localhost")}/elsewhere/${file.id}` }).end();
    } else {
      res.writeHead(200, { "content-type": file.contentType, "content-length": String(file.content.length) });
      res.end(file.content);
    }
    return true;
  }
}
