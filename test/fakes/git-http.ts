import { spawn, execFileSync } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";

/**
 * Git's own smart-HTTP server, `git http-backend` (a CGI program shipped with
 * git), run once per request on a folder of bare repositories: what a real
 * git host speaks, so the executor's and the sandbox's git talk to a real
 * server in the tests. Protocol v0 (no Git-Protocol passed on): a fetch is
 * `GET info/refs` then `POST git-upload-pack`, a push `POST git-receive-pack`.
 */

const BACKEND = join(execFileSync("git", ["--exec-path"]).toString().trim(), "git-http-backend");

/** The git service a request is for, from its path and query (null: not a git request). */
export function gitServiceOf(pathInfo: string, query: URLSearchParams, method: string): "upload-pack" | "receive-pack" | null {
  if (method === "GET" && pathInfo.endsWith("/info/refs")) {
    const service = query.get("service");
    return service === "git-receive-pack" ? "receive-pack" : "upload-pack";
  }
  if (method === "POST" && pathInfo.endsWith("/git-upload-pack")) return "upload-pack";
  if (method === "POST" && pathInfo.endsWith("/git-receive-pack")) return "receive-pack";
  return null;
}

/**
 * Answers `req` with `git http-backend` serving `projectRoot`; `pathInfo` is
 * the repository's path under it (`/owner/name.git/info/refs`). `remoteUser`
 * set: the request was authenticated (http-backend allows pushes only then).
 */
export function serveGit(req: IncomingMessage, res: ServerResponse, projectRoot: string, pathInfo: string, remoteUser: string | null): Promise<void> {
  const url = new URL(req.url ?? "/", "http://x");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: "1",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    PATH_INFO: pathInfo,
    REQUEST_METHOD: req.method ?? "GET",
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: String(req.headers["content-type"] ?? ""),
    REMOTE_ADDR: "127.0.0.1",
    ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"]) } : {}),
    ...(req.headers["content-length"] ? { CONTENT_LENGTH: String(req.headers["content-length"]) } : {}),
    ...(remoteUser ? { REMOTE_USER: remoteUser } : {}),
  };
  return new Promise((resolve) => {
    const child = spawn(BACKEND, [], { env, stdio: ["pipe", "pipe", "inherit"] });
    req.pipe(child.stdin);
    child.stdin.on("error", () => {});
    let head = Buffer.alloc(0);
    let started = false;
    child.stdout.on("data", (chunk: Buffer) => {
      if (started) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      started = true;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString().split("\r\n")) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (name === "status") status = Number(value.split(" ")[0]);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    child.on("close", () => {
      if (!started) res.writeHead(500).end("git http-backend wrote no headers");
      else res.end();
      resolve();
    });
  });
}

/** A pack request held open until the test lets it go (a barrier for what must happen during a fetch or a push). */
export interface HeldPack {
  /** Settles when the pack request has arrived and is being held. */
  arrived: Promise<void>;
  release(): void;
}

/**
 * The next fetch's (`POST git-upload-pack`) or push's (`POST git-receive-pack`)
 * pack request, held at a test's word: a git host's handler awaits `pass`
 * before it serves each request.
 */
export class PackHolds {
  private readonly held = new Map<"upload-pack" | "receive-pack", { arrived: () => void; released: Promise<void> }>();

  holdNext(service: "upload-pack" | "receive-pack"): HeldPack {
    let arrived!: () => void;
    let release!: () => void;
    const arrivedP = new Promise<void>((r) => (arrived = r));
    const released = new Promise<void>((r) => (release = r));
    this.held.set(service, { arrived, released });
    return { arrived: arrivedP, release };
  }

  /** Resolves at once, or, for the pack request a hold waits for, once the test releases it. */
  async pass(service: "upload-pack" | "receive-pack", method: string): Promise<void> {
    const hold = method === "POST" ? this.held.get(service) : undefined;
    if (!hold) return;
    this.held.delete(service);
    hold.arrived();
    await hold.released;
  }
}
