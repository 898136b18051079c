import { execFile } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { isValidSessionId, type Owner } from "../workspace.ts";

/**
 * The host side of a checkout: each room's repository is fetched with the
 * read token into a bare mirror of its own, `<root>/mirrors/<sessionId>.git`,
 * outside every workspace. Only this file runs git on the host, and only on
 * those mirrors (made here, never a workspace's `.git`, whose config and
 * hooks a model's command could have written). The token reaches git as an
 * `http.extraHeader` in the environment of the one git process that needs
 * it (GIT_CONFIG_COUNT/KEY/VALUE): never in argv, never in a file. Sandboxes
 * are in PID namespaces of their own, so no command sees that process.
 */

/** How long one host git step may take (a large repository's first fetch). */
export const HOST_GIT_TIMEOUT_MS = 5 * 60_000;
/** git's stderr is cut to this in an error line. */
const ERROR_CHARS = 300;

/** A git step that failed, with what a person is told and the HTTP status the executor answers. */
export class GitStepError extends Error {
  constructor(
    readonly status: number,
    readonly code: "no_branch" | "no_repo" | "refused" | "unreachable" | "checkout_failed" | "push_failed" | "nothing_changed" | "too_large",
    message: string,
  ) {
    super(message);
  }
}

export function mirrorsDir(root: string): string {
  return join(root, "mirrors");
}

export function mirrorOf(root: string, sessionId: string): string {
  if (!isValidSessionId(sessionId)) throw new Error(`invalid session id: ${JSON.stringify(sessionId)}`);
  return join(mirrorsDir(root), `${sessionId}.git`);
}

/** Git's environment: nothing of the host's configuration, no prompt, no helper; `token` as a Basic header when given. */
function gitEnv(token: string | null): Record<string, string> {
  const env: Record<string, string> = {
    PATH: "/usr/sbin:/usr/bin:/sbin:/bin",
    HOME: "/nonexistent",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ALLOW_PROTOCOL: "http:https",
    GIT_CONFIG_COUNT: "1",
    // No credential helper, so git never asks for (or stores) anything else.
    GIT_CONFIG_KEY_0: "credential.helper",
    GIT_CONFIG_VALUE_0: "",
  };
  if (token) {
    env.GIT_CONFIG_COUNT = "2";
    env.GIT_CONFIG_KEY_1 = "http.extraHeader";
    env.GIT_CONFIG_VALUE_1 = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
  }
  return env;
}

/** Runs host git; resolves with stdout, rejects with stderr's text (the token taken out, should git ever quote it). */
export function git(args: string[], token: string | null): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", args, { env: gitEnv(token), timeout: HOST_GIT_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const said = (stderr || err.message).split(token ?? "\0").join("[token]").trim();
      reject(new Error(err.killed ? `git took longer than ${HOST_GIT_TIMEOUT_MS / 1000} s` : said));
    });
  });
}

/**
 * git's error with its URLs taken out, to be read for what happened: git quotes the remote's URL,
 * and its port or the repository's name may hold "403", "404" or "not found".
 */
export function gitWords(said: string): string {
  return said.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, "<url>");
}

/** Whether git's error (read by gitWords) says the host refused the token. */
export const refusedByHost = (words: string): boolean => /Authentication failed|could not read Username|terminal prompts disabled|\b403\b/i.test(words);

/** What git's error says, as a GitStepError a person can act on. */
function remoteFailure(said: string, what: string): GitStepError {
  const line = said.split("\n").find((l) => l.startsWith("fatal:")) ?? said.split("\n")[0] ?? "";
  const words = gitWords(said);
  if (refusedByHost(words)) return new GitStepError(502, "refused", `the git host refused Duet's token for ${what}`);
  if (/not found|\b404\b/i.test(words)) return new GitStepError(404, "no_repo", `${what} was not found on the git host`);
  return new GitStepError(502, "unreachable", `git could not fetch ${what}: ${line.slice(0, ERROR_CHARS)}`);
}

/**
 * The branch to check out: `branch` when the remote has it, else (null) the
 * remote's default branch, from one `ls-remote`. A branch the remote lacks
 * is a 404 naming it.
 */
export async function resolveBranch(url: string, token: string, branch: string | null, what: string): Promise<string> {
  const refs = branch ? ["HEAD", `refs/heads/${branch}`] : ["HEAD"];
  const out = await git(["ls-remote", "--symref", "--", url, ...refs], token).catch((err: Error) => {
    throw remoteFailure(err.message, what);
  });
  if (branch) {
    if (out.split("\n").some((line) => line.endsWith(`\trefs/heads/${branch}`))) return branch;
    throw new GitStepError(404, "no_branch", `branch "${branch}" does not exist in ${what}`);
  }
  const head = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(out)?.[1];
  if (!head) throw new GitStepError(404, "no_branch", `${what} has no default branch (is it empty?)`);
  return head;
}

/**
 * Fetches `branch` of `url` into the room's mirror (made on first use, empty
 * of hooks), readable by the sandbox's host identity (`owner`, when the
 * executor is root) and by no other local user.
 */
export async function fetchIntoMirror(root: string, sessionId: string, owner: Owner | null, url: string, token: string, branch: string, what: string): Promise<string> {
  const dir = mirrorOf(root, sessionId);
  mkdirSync(mirrorsDir(root), { recursive: true, mode: owner ? 0o711 : 0o700 });
  if (!existsSync(join(dir, "HEAD"))) {
    // --template= : no sample hooks; nothing in the mirror runs.
    await git(["init", "--quiet", "--bare", "--template=", dir], null);
  }
  if (owner) {
    chownSync(dir, 0, owner.gid);
    chmodSync(dir, 0o750);
  }
  await git(["-C", dir, "fetch", "--quiet", "--no-tags", "--", url, `+refs/heads/${branch}:refs/heads/${branch}`], token).catch((err: Error) => {
    throw remoteFailure(err.message, what);
  });
  await git(["-C", dir, "symbolic-ref", "HEAD", `refs/heads/${branch}`], null);
  return dir;
}
