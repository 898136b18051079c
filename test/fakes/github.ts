import { execFileSync } from "node:child_process";
import { verify, type KeyObject } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { gitServiceOf, PackHolds, serveGit, type HeldPack } from "./git-http.ts";
import { listen, readBody, sendJson, type Listening } from "./http.ts";

/**
 * A fake of the GitHub REST routes a GitHub App uses, on 127.0.0.1:
 * `POST /app/installations/:id/access_tokens` and
 * `GET /repos/:owner/:name/installation` (both take the App's JWT, checked
 * against the App's public key: signature, issuer, a life of at most 10
 * minutes), and `GET /repos/:owner/:name`, `GET` and `POST /repos/:owner/:name/pulls`
 * `POST /repos/:owner/:name/issues/:n/comments`, and with `gitRoot`
 * `GET /repos/:owner/:name/git/ref/heads/:branch` and
 * `DELETE /repos/:owner/:name/git/refs/heads/:branch` (each takes an
 * installation token this fake minted for that repository). Anything else is 404.
 *
 * `limitNext(seconds)`: the next token request answers 403 with
 * `retry-after`, as GitHub's secondary rate limit does.
 *
 * With `gitRoot`, it is also the git host: `/:owner/:name.git/...` is served
 * by `git http-backend` from `gitRoot/owner/name.git` (a bare repository),
 * to a request whose Basic auth is `x-access-token:<token>` with a token
 * minted here for that repository (a push needs `contents: write`); any
 * other request is refused 401 with a Basic challenge, as GitHub does.
 */
/** One request to the git host, as the fake saw it. */
export interface GitRequest {
  service: "upload-pack" | "receive-pack";
  method: string;
  /** `owner/name`. */
  repo: string;
  /** What Authorization held (scheme and all), or null when it held nothing. */
  authorization: string | null;
  /** Whether it was let through. */
  allowed: boolean;
}


export interface TokenRequest {
  installationId: number;
  repositories?: string[];
  permissions?: Record<string, string>;
}

export interface FakeRepo {
  /** `owner/name`. */
  fullName: string;
  /** The installation that can see it; absent: the App is not installed there. */
  installationId?: number;
  defaultBranch?: string;
  private?: boolean;
  /** Archived on GitHub: read-only. */
  archived?: boolean;
}

/** A pull request opened on the fake, with what it was opened with. */
export interface FakePull {
  repo: string;
  number: number;
  title: string;
  head: string;
  base: string;
  body: string;
  html_url: string;
  /** The permissions of the token that opened it. */
  permissions: Record<string, string>;
}

/** A comment posted on a pull request's conversation (`POST /repos/:owner/:name/issues/:n/comments`). */
export interface FakeComment {
  repo: string;
  number: number;
  body: string;
  /** The permissions of the token that posted it. */
  permissions: Record<string, string>;
}

export interface FakeGithub extends Listening {
  /** Comments posted on pull requests, oldest first. */
  comments: FakeComment[];
  /** Pull requests opened, oldest first (`POST /repos/:owner/:name/pulls`, with a token that may write pull requests). */
  pulls: FakePull[];
  tokenRequests: TokenRequest[];
  /** Minted tokens' values, newest last (a test checks none leaked). */
  minted: string[];
  /** Every App JWT the fake was shown, oldest first (a test checks none leaked). */
  jwts: string[];
  addRepo(repo: FakeRepo): void;
  limitNext(retryAfterS: number): void;
  /** Every request to the git host, oldest first. */
  gitRequests: GitRequest[];
  /** Pushes the git host accepted. */
  pushes(): number;
  /** Holds the next fetch's pack request (`POST git-upload-pack`) until `release`. */
  holdNextFetch(): HeldPack;
  /** The next request to open a pull request is refused with `status` and GitHub's `message`, and nothing is opened. */
  refuseNextPull(status: number, message: string): void;
  /** Branches deleted through `DELETE .../git/refs/heads/:branch`, as `owner/name:branch`, oldest first. */
  deletedBranches: string[];
  /** The next pull request opened is made, but its answer is lost: the connection is cut, as when the caller dies before it reads it. */
  loseNextPullAnswer(): void;
}

export interface FakeGithubOptions {
  appId: string;
  publicKey: KeyObject;
  /** The fake's clock, in ms (shared with the code under test when that code's clock is injected). */
  now?: () => number;
  /** How long a minted token lasts. */
  tokenLifeMs?: number;
  /** A folder of bare repositories (`owner/name.git`) to serve over smart HTTP. */
  gitRoot?: string;
}

/** A pull request as GitHub's REST API answers it (the fields Duet reads and a few beside). */
function pullJson(p: FakePull) {
  const owner = p.repo.split("/")[0];
  return { number: p.number, state: "open", title: p.title, html_url: p.html_url, head: { ref: p.head, label: `${owner}:${p.head}` }, base: { ref: p.base, label: `${owner}:${p.base}` } };
}

export async function startFakeGithub(opts: FakeGithubOptions): Promise<FakeGithub> {
  const now = opts.now ?? Date.now;
  const tokenLifeMs = opts.tokenLifeMs ?? 60 * 60 * 1000;
  const repos = new Map<string, FakeRepo>();
  const tokens = new Map<string, { installationId: number; repositories: string[]; expiresAt: number; permissions: Record<string, string> }>();
  const gitRequests: GitRequest[] = [];
  let pushes = 0;
  const holds = new PackHolds();
  const tokenRequests: TokenRequest[] = [];
  const minted: string[] = [];
  const jwts: string[] = [];
  let limitNext: number | null = null;
  let loseNextPull = false;
  let refuseNext: { status: number; message: string } | null = null;
  const deletedBranches: string[] = [];
  const pulls: FakePull[] = [];
  const comments: FakeComment[] = [];

  /** Why the request's App JWT is not good, or null when it is. */
  const jwtProblem = (authorization: string | undefined): string | null => {
    const jwt = /^Bearer (.+)$/.exec(authorization ?? "")?.[1];
    if (jwt && !jwts.includes(jwt)) jwts.push(jwt);
    const parts = jwt?.split(".") ?? [];
    if (parts.length !== 3) return "A JSON web token could not be decoded";
    const [header, claims, signature] = parts;
    if (!verify("sha256", Buffer.from(`${header}.${claims}`), opts.publicKey, Buffer.from(signature, "base64url"))) return "signature does not match";
    const alg = JSON.parse(Buffer.from(header, "base64url").toString()).alg;
    const c = JSON.parse(Buffer.from(claims, "base64url").toString()) as { iat: number; exp: number; iss: unknown };
    const nowS = Math.floor(now() / 1000);
    if (alg !== "RS256") return "alg must be RS256";
    if (String(c.iss) !== opts.appId) return "'Issuer' claim ('iss') must be the App's id";
    if (c.iat > nowS) return "'Issued at' claim ('iat') must be an Integer representing a time in the past";
    if (c.exp <= nowS || c.exp - c.iat > 600) return "'Expiration time' claim ('exp') is too far in the future or in the past";
    return null;
  };

  /** Whether `authorization` is Basic x-access-token with a live token for `fullName` that may `service`. */
  const gitAllowed = (authorization: string | null, fullName: string, service: GitRequest["service"]): boolean => {
    const basic = /^Basic (.+)$/i.exec(authorization ?? "")?.[1];
    if (!basic) return false;
    const [user, secret] = Buffer.from(basic, "base64").toString().split(":");
    const token = tokens.get(secret ?? "");
    const repo = repos.get(fullName.toLowerCase());
    if (user !== "x-access-token" || !token || !repo || token.expiresAt <= now() || token.installationId !== repo.installationId) return false;
    if (!token.repositories.includes(fullName.split("/")[1])) return false;
    return service === "upload-pack" || token.permissions.contents === "write";
  };

  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const git = /^\/([^/]+)\/([^/]+)\.git(\/.*)$/.exec(url.pathname);
    if (opts.gitRoot && git) {
      const fullName = `${git[1]}/${git[2]}`;
      const service = gitServiceOf(git[3], url.searchParams, req.method ?? "GET");
      if (!service) return sendJson(res, 404, { message: "Not Found" });
      const authorization = req.headers.authorization ?? null;
      const allowed = gitAllowed(authorization, fullName, service);
      gitRequests.push({ service, method: req.method ?? "GET", repo: fullName, authorization, allowed });
      if (!allowed) {
        res.writeHead(401, { "www-authenticate": 'Basic realm="GitHub"', "content-type": "text/plain" });
        return void res.end("Invalid username or token.");
      }
      const bare = join(opts.gitRoot, `${fullName}.git`);
      if (!existsSync(bare)) return sendJson(res, 404, { message: "Repository not found." });
      await holds.pass(service, req.method ?? "GET");
      await serveGit(req, res, opts.gitRoot, `/${fullName}.git${git[3]}`, "x-access-token");
      if (service === "receive-pack" && req.method === "POST" && res.statusCode === 200) pushes++;
      return;
    }
    const mint = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(url.pathname);
    if (req.method === "POST" && mint) {
      const problem = jwtProblem(req.headers.authorization);
      if (problem) return sendJson(res, 401, { message: problem });
      const body = JSON.parse((await readBody(req)) || "{}") as Omit<TokenRequest, "installationId">;
      const installationId = Number(mint[1]);
      tokenRequests.push({ installationId, ...body });
      if (limitNext !== null) {
        const seconds = limitNext;
        limitNext = null;
        return sendJson(res, 403, { message: "You have exceeded a secondary rate limit" }, { "retry-after": String(seconds) });
      }
      const names = [...repos.values()].filter((r) => r.installationId === installationId).map((r) => r.fullName.split("/")[1]);
      if (!names.length) return sendJson(res, 404, { message: "Not Found" });
      const wanted = body.repositories ?? names;
      if (wanted.some((n) => !names.includes(n))) return sendJson(res, 422, { message: "There is at least one repository that does not exist or is not accessible to the parent installation." });
      const token = `ghs_fake${minted.length}${Math.random().toString(36).slice(2, 12)}`;
      const expiresAt = now() + tokenLifeMs;
      minted.push(token);
      tokens.set(token, { installationId, repositories: wanted, expiresAt, permissions: body.permissions ?? {} });
      return sendJson(res, 201, { token, expires_at: new Date(expiresAt).toISOString(), permissions: body.permissions ?? {}, repository_selection: "selected" });
    }
    const pullsPath = /^\/repos\/([^/]+)\/([^/]+)\/pulls$/.exec(url.pathname);
    if (pullsPath) {
      const fullName = `${pullsPath[1]}/${pullsPath[2]}`;
      const token = tokens.get(/^(?:token|Bearer) (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "");
      const repo = repos.get(fullName.toLowerCase());
      if (!repo || !token || token.expiresAt <= now() || token.installationId !== repo.installationId || !token.repositories.includes(pullsPath[2])) return sendJson(res, 404, { message: "Not Found" });
      if (req.method === "GET") {
        // GitHub's filters: `head` as `owner:branch`, `base`, and `state` (open unless asked); every pull request here is open.
        const head = url.searchParams.get("head");
        const base = url.searchParams.get("base");
        const state = url.searchParams.get("state") ?? "open";
        const owner = pullsPath[1];
        const listed = pulls.filter((p) => p.repo === fullName && (!head || head === `${owner}:${p.head}`) && (!base || base === p.base) && (state === "open" || state === "all"));
        return sendJson(res, 200, listed.map(pullJson));
      }
      if (token.permissions.pull_requests !== "write") return sendJson(res, 403, { message: "Resource not accessible by integration" });
      const body = JSON.parse((await readBody(req)) || "{}") as { title?: string; head?: string; base?: string; body?: string };
      if (!body.title || !body.head || !body.base) return sendJson(res, 422, { message: "Validation Failed" });
      if (refuseNext) {
        const refused = refuseNext;
        refuseNext = null;
        return sendJson(res, refused.status, { message: refused.message });
      }
      if (opts.gitRoot && !existsSync(join(opts.gitRoot, `${fullName}.git`, "refs", "heads", ...body.head.split("/")))) {
        return sendJson(res, 422, { message: "Validation Failed", errors: [{ field: "head", code: "invalid" }] });
      }
      if (pulls.some((p) => p.repo === fullName && p.head === body.head)) {
        // As GitHub answers it: the reason is in `errors`, the message is only "Validation Failed".
        return sendJson(res, 422, { message: "Validation Failed", errors: [{ resource: "PullRequest", code: "custom", message: `A pull request already exists for ${pullsPath[1]}:${body.head}.` }], status: "422" });
      }
      const number = pulls.length + 1;
      const pull: FakePull = { repo: fullName, number, title: body.title, head: body.head, base: body.base, body: body.body ?? "", html_url: `https://github.example/${fullName}/pull/${number}`, permissions: token.permissions };
      pulls.push(pull);
      if (loseNextPull) {
        loseNextPull = false;
        req.socket.destroy();
        return;
      }
      return sendJson(res, 201, pullJson(pull));
    }
    const refPath = /^\/repos\/([^/]+)\/([^/]+)\/git\/(ref|refs)\/heads\/(.+)$/.exec(url.pathname);
    if (opts.gitRoot && refPath && ((req.method === "GET" && refPath[3] === "ref") || (req.method === "DELETE" && refPath[3] === "refs"))) {
      const fullName = `${refPath[1]}/${refPath[2]}`;
      const token = tokens.get(/^(?:token|Bearer) (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "");
      const repo = repos.get(fullName.toLowerCase());
      if (!repo || !token || token.expiresAt <= now() || token.installationId !== repo.installationId || !token.repositories.includes(refPath[2])) return sendJson(res, 404, { message: "Not Found" });
      const bare = join(opts.gitRoot, `${fullName}.git`);
      const ref = `refs/heads/${decodeURIComponent(refPath[4])}`;
      let sha: string;
      try {
        sha = execFileSync("git", ["-C", bare, "rev-parse", "--verify", "--quiet", ref]).toString().trim();
      } catch {
        return sendJson(res, 404, { message: "Not Found" });
      }
      if (req.method === "GET") return sendJson(res, 200, { ref, object: { type: "commit", sha } });
      if (token.permissions.contents !== "write") return sendJson(res, 403, { message: "Resource not accessible by integration" });
      execFileSync("git", ["-C", bare, "update-ref", "-d", ref]);
      deletedBranches.push(`${fullName}:${ref.slice("refs/heads/".length)}`);
      res.writeHead(204);
      return void res.end();
    }
    const commentsPath = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname);
    if (req.method === "POST" && commentsPath) {
      const fullName = `${commentsPath[1]}/${commentsPath[2]}`;
      const token = tokens.get(/^(?:token|Bearer) (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "");
      const repo = repos.get(fullName.toLowerCase());
      if (!repo || !token || token.expiresAt <= now() || token.installationId !== repo.installationId || !token.repositories.includes(commentsPath[2])) return sendJson(res, 404, { message: "Not Found" });
      // GitHub lets a token that may write issues or pull requests comment on a pull request.
      if (token.permissions.pull_requests !== "write" && token.permissions.issues !== "write") return sendJson(res, 403, { message: "Resource not accessible by integration" });
      const number = Number(commentsPath[3]);
      if (!pulls.some((p) => p.repo === fullName && p.number === number)) return sendJson(res, 404, { message: "Not Found" });
      const body = JSON.parse((await readBody(req)) || "{}") as { body?: unknown };
      if (typeof body.body !== "string" || !body.body) return sendJson(res, 422, { message: "Validation Failed" });
      comments.push({ repo: fullName, number, body: body.body, permissions: token.permissions });
      return sendJson(res, 201, { id: comments.length, body: body.body, html_url: `https://github.example/${fullName}/pull/${number}#issuecomment-${comments.length}` });
    }
    const repoPath = /^\/repos\/([^/]+)\/([^/]+)(\/installation)?$/.exec(url.pathname);
    if (req.method === "GET" && repoPath) {
      const fullName = `${repoPath[1]}/${repoPath[2]}`;
      const repo = [...repos.values()].find((r) => r.fullName.toLowerCase() === fullName.toLowerCase());
      if (repoPath[3]) {
        const problem = jwtProblem(req.headers.authorization);
        if (problem) return sendJson(res, 401, { message: problem });
        if (!repo?.installationId) return sendJson(res, 404, { message: "Not Found" });
        return sendJson(res, 200, { id: repo.installationId, app_id: Number(opts.appId) });
      }
      const token = tokens.get(/^(?:token|Bearer) (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "");
      const name = fullName.split("/")[1];
      if (!repo || !token || token.expiresAt <= now() || token.installationId !== repo.installationId || !token.repositories.includes(name)) {
        return sendJson(res, 404, { message: "Not Found" });
      }
      return sendJson(res, 200, { full_name: repo.fullName, default_branch: repo.defaultBranch ?? "main", private: repo.private ?? true, archived: repo.archived ?? false });
    }
    return sendJson(res, 404, { message: "Not Found" });
  });

  return {
    ...listening,
    tokenRequests,
    minted,
    jwts,
    pulls,
    comments,
    addRepo: (repo) => repos.set(repo.fullName.toLowerCase(), repo),
    limitNext: (seconds) => (limitNext = seconds),
    gitRequests,
    pushes: () => pushes,
    holdNextFetch: () => holds.holdNext("upload-pack"),
    loseNextPullAnswer: () => (loseNextPull = true),
    refuseNextPull: (status, message) => (refuseNext = { status, message }),
    deletedBranches,
  };
}
