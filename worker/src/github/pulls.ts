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

/** Opens a pull request through GitHub's REST API (`POST /repos/:owner/:name/pulls`). Throws a DuetError with one line. */
export async function openPull(app: InstallationTokens, ask: PullAsk, now: number): Promise<PullRef> {
  const res = await app.call(`/repos/${ask.repo}/pulls`, {
    method: "POST",
    headers: { ...githubHeaders(`token ${ask.token}`), "content-type": "application/json" },
    body: JSON.stringify({ title: ask.title, head: ask.head, base: ask.base, body: ask.body }),
  });
  if (res.status === 201) {
    const made = (await res.json().catch(() => null)) as { html_url?: unknown; number?: unknown } | null;
    if (typeof made?.html_url === "string" && typeof made.number === "number") return { url: made.html_url, number: made.number };
    throw new DuetError("github_error", "GitHub answered the new pull request without its address");
  }
  throw await githubFailure(res, `opening a pull request on ${ask.repo}`, now);
}
