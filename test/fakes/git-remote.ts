import { existsSync } from "node:fs";
import { join } from "node:path";
import { gitServiceOf, PackHolds, serveGit, type HeldPack } from "./git-http.ts";
import { listen, sendJson } from "./http.ts";

/**
 * A plain git host over HTTP (as Gitea, GitLab or a bare server behind a
 * proxy would be, with no GitHub API): `/git/owner/name.git/…` served by
 * `git http-backend` from `root/owner/name.git`, to a request whose Basic
 * auth carries `token` as its password (any user name, as those hosts take a
 * personal access token); anything else 401. Every git request is recorded.
 */
export interface FakeGitRemote {
  url: string;
  /** DUET_GIT_REMOTE_URL for a Worker pointed at it. */
  template: string;
  requests: { service: "upload-pack" | "receive-pack"; method: string; repo: string; authorization: string | null; allowed: boolean }[];
  pushes(): number;
  /** Holds the next fetch's (`upload-pack`) or push's (`receive-pack`) pack request until `release`. */
  holdNext(service: "upload-pack" | "receive-pack"): HeldPack;
  close(): Promise<void>;
}

export async function startFakeGitRemote(root: string, token: string): Promise<FakeGitRemote> {
  const requests: FakeGitRemote["requests"] = [];
  let pushes = 0;
  const holds = new PackHolds();
  const allowed = (authorization: string | null): boolean => {
    const basic = /^Basic (.+)$/i.exec(authorization ?? "")?.[1];
    if (!basic) return false;
    const decoded = Buffer.from(basic, "base64").toString();
    return decoded.slice(decoded.indexOf(":") + 1) === token;
  };
  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const git = /^\/git\/([^/]+)\/([^/]+)\.git(\/.*)$/.exec(url.pathname);
    const service = git ? gitServiceOf(git[3], url.searchParams, req.method ?? "GET") : null;
    if (!git || !service) return sendJson(res, 404, { message: "Not Found" });
    const repo = `${git[1]}/${git[2]}`;
    const authorization = req.headers.authorization ?? null;
    const ok = allowed(authorization);
    requests.push({ service, method: req.method ?? "GET", repo, authorization, allowed: ok });
    if (!ok) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="git"', "content-type": "text/plain" });
      return void res.end("Unauthorized");
    }
    if (!existsSync(join(root, `${repo}.git`))) return sendJson(res, 404, { message: "Repository not found." });
    await holds.pass(service, req.method ?? "GET");
    await serveGit(req, res, root, `/${repo}.git${git[3]}`, "duet");
    if (service === "receive-pack" && req.method === "POST" && res.statusCode === 200) pushes++;
  });
  return {
    url: listening.url,
    template: `${listening.url}/git/{repo}.git`,
    requests,
    pushes: () => pushes,
    holdNext: (service) => holds.holdNext(service),
    close: () => listening.close(),
  };
}
