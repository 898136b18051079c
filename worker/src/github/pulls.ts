import { DuetError } from "@duet/shared";
import { githubFailure } from "./github-errors.ts";
import { githubHeaders, type InstallationTokens } from "./installation-tokens.ts";

/** A pull request as Duet keeps it: its page and number. */
export interface PullRef {
  url: string;
  number: number;
}

/** What opening a pull request needs: a token with `pull_requests: write`, the head branch, the base, the title and body. */
export interface PullAsk {
  token: string;
  repo: string;
  head: string;
  base: string;
  title: string;
  body: string;
}

/** A pull request in GitHub's answer, as a PullRef, or null when it lacks its number or address. */
function pullRefOf(json: unknown): PullRef | null {
  const pull = json as { html_url?: unknown; number?: unknown } | null;
  return typeof pull?.html_url === "string" && typeof pull.number === "number" ? { url: pull.html_url, number: pull.number } : null;
}

/** GitHub's 422 for a head branch that already has an open pull request: "Validation Failed" with this in its errors. */
const ALREADY_EXISTS = /a pull request already exists/i;

/**
 * Opens a pull request through GitHub's REST API (`POST /repos/:owner/:name/pulls`).
 * A `duet/` branch has one pull request: when GitHub answers that one already
 * exists for the head (Duet opened it, then crashed before keeping it), that
 * one is found and answered, so a retry opens nothing twice. Throws a DuetError with one line.
 */
export async function openPull(app: InstallationTokens, ask: PullAsk, now: number): Promise<PullRef> {
  const res = await app.call(`/repos/${ask.repo}/pulls`, {
    method: "POST",
    headers: { ...githubHeaders(`token ${ask.token}`), "content-type": "application/json" },
    body: JSON.stringify({ title: ask.title, head: ask.head, base: ask.base, body: ask.body }),
  });
  if (res.status === 201) {
    const made = pullRefOf(await res.json().catch(() => null));
    if (made) return made;
    throw new DuetError("github_error", "GitHub answered the new pull request without its address");
  }
  if (res.status === 422) {
    const said = await res.clone().text();
    if (ALREADY_EXISTS.test(said)) {
      const found = await findPull(app, ask, now);
      if (found) return found;
    }
  }
  throw await githubFailure(res, `opening a pull request on ${ask.repo}`, now);
}

/** The open pull request from `ask.head` into `ask.base` (`GET /repos/:owner/:name/pulls?head=owner:branch`), or null when there is none. */
export async function findPull(app: InstallationTokens, ask: PullAsk, now: number): Promise<PullRef | null> {
  const owner = ask.repo.split("/")[0];
  const query = new URLSearchParams({ head: `${owner}:${ask.head}`, base: ask.base, state: "open" });
  const res = await app.call(`/repos/${ask.repo}/pulls?${query}`, { headers: githubHeaders(`token ${ask.token}`) });
  if (!res.ok) throw await githubFailure(res, `finding the pull request for ${ask.head} on ${ask.repo}`, now);
  const list = (await res.json().catch(() => null)) as unknown;
  return Array.isArray(list) ? (list.map(pullRefOf).find((p) => p !== null) ?? null) : null;
}

/**
 * Deletes `branch` on `repo` when its head is still `sha` (the commit Duet
 * pushed), so a branch someone else moved since is left alone. With a token
 * that may write contents; GitHub has no conditional delete, so the head is
 * read first. Whether it was deleted.
 */
export async function deleteBranchAt(app: InstallationTokens, ask: { token: string; repo: string; branch: string; sha: string }, now: number): Promise<boolean> {
  const path = `/repos/${ask.repo}/git`;
  const branch = ask.branch.split("/").map(encodeURIComponent).join("/");
  const head = await app.call(`${path}/ref/heads/${branch}`, { headers: githubHeaders(`token ${ask.token}`) });
  if (head.status === 404) return false;
  if (!head.ok) throw await githubFailure(head, `reading ${ask.branch} on ${ask.repo}`, now);
  const at = ((await head.json().catch(() => null)) as { object?: { sha?: unknown } } | null)?.object?.sha;
  if (at !== ask.sha) return false;
  const gone = await app.call(`${path}/refs/heads/${branch}`, { method: "DELETE", headers: githubHeaders(`token ${ask.token}`) });
  if (gone.status === 204 || gone.status === 422) return gone.status === 204;
  throw await githubFailure(gone, `deleting ${ask.branch} on ${ask.repo}`, now);
}
