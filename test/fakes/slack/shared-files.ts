import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Files people share in the fake workspace, served as Slack serves them:
 * `url_private_download` under `/files-pri/`, the bytes only with the bot's
 * token in `Authorization`. Modes stand in for what goes wrong in real
 * workspaces: `login-page` answers Slack's HTML sign-in page (what an app
 * without `files:read` gets), `redirect-elsewhere` redirects to another host
 * (the same server under `localhost`, so what arrives there is recorded),
 * `declared-small` states a size smaller than the bytes it sends.
 */

export type SharedFileMode = "normal" | "login-page" | "redirect-elsewhere" | "declared-small";

export interface SharedFileInput {
  name: string;
  content: Buffer | string;
  mimetype?: string;
  mode?: SharedFileMode;
}

interface Served {
  id: string;
  name: string;
  content: Buffer;
  mimetype: string;
  mode: SharedFileMode;
}

/** A request that reached the "elsewhere" host, with the headers it carried. */
export interface ElsewhereRequest {
  path: string;
  authorization?: string;
}

const LOGIN_PAGE = `<!DOCTYPE html><html><head><title>Slack</title></head><body><form action="/signin">Sign in to duet-test</form></body></html>`;

export class SharedFiles {
  private readonly files = new Map<string, Served>();
  private seq = 0;
  /** Every request the redirect-elsewhere host received. */
  readonly elsewhere: ElsewhereRequest[] = [];
  /** Every download of a shared file: its id and the token it came with. */
  readonly downloads: { id: string; token?: string }[] = [];

  constructor(
    private readonly teamId: string,
    private readonly base: () => string,
    private readonly tokenOk: (token: string | undefined) => boolean,
  ) {}

  /** A file in the workspace, as the `files[]` entry of the event that shares it. */
  share(input: SharedFileInput): Record<string, unknown> {
    this.seq += 1;
    const id = `F${this.seq.toString().padStart(8, "0")}`;
    const content = Buffer.isBuffer(input.content) ? input.content : Buffer.from(input.content);
    const file: Served = { id, name: input.name, content, mimetype: input.mimetype ?? "text/csv", mode: input.mode ?? "normal" };
    this.files.set(id, file);
    const url = `${this.base()}/files-pri/${this.teamId}-${id}/download/${encodeURIComponent(input.name)}`;
    return {
      id,
      name: input.name,
      title: input.name,
      mimetype: file.mimetype,
      filetype: input.name.split(".").pop() ?? "binary",
      size: file.mode === "declared-small" ? 1 : content.length,
      mode: "hosted",
      url_private: url,
      url_private_download: url,
    };
  }

  /** Handles `/files-pri/...` and the elsewhere host's requests; false when the path is neither. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    if (req.headers.host?.startsWith("localhost")) {
      this.elsewhere.push({ path: url.pathname, authorization: req.headers.authorization });
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end("bytes from elsewhere");
      return true;
    }
    const m = /^\/files-pri\/[^/]+-(F\w+)\/download\/[^/]+$/.exec(url.pathname);
    if (!m || req.method !== "GET") return false;
    const file = this.files.get(m[1]);
    const auth = req.headers.authorization;
    const token = auth?.startsWith("Bearer ") ? auth.slice(7) : undefined;
    this.downloads.push({ id: m[1], token });
    if (!file) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("file not found");
      return true;
    }
    if (file.mode === "redirect-elsewhere") {
      res.writeHead(302, { location: `${this.base().replace("127.0.0.1", "localhost")}/elsewhere/${file.id}` });
      res.end();
      return true;
    }
    // Slack answers its sign-in page, 200 and HTML, when the token may not read files.
    if (file.mode === "login-page" || !this.tokenOk(token)) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(LOGIN_PAGE);
      return true;
    }
    // A file that declared a smaller size comes chunked, so only counting its bytes finds out.
    const length = file.mode === "declared-small" ? {} : { "content-length": String(file.content.length) };
    res.writeHead(200, { "content-type": file.mimetype, ...length });
    res.end(file.content);
    return true;
  }
}
