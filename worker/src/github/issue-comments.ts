import { githubFailure } from "./github-errors.ts";
import { githubHeaders, type InstallationTokens } from "./installation-tokens.ts";

/** GitHub's limit on a comment's body. */
export const COMMENT_BODY_MAX_CHARS = 65_536;

/**
 * Posts `body` as a comment on pull request `number` of `repo` (a pull
 * request's conversation is its issue's: `POST /repos/:owner/:name/issues/:n/comments`),
 * with a token that may write pull requests. Throws a DuetError with one line.
 */
export async function postPullComment(app: InstallationTokens, token: string, repo: string, number: number, body: string, now: number): Promise<void> {
  const text = body.length > COMMENT_BODY_MAX_CHARS ? `${body.slice(0, COMMENT_BODY_MAX_CHARS - 1)}…` : body;
  const res = await app.call(`/repos/${repo}/issues/${number}/comments`, {
    method: "POST",
    headers: { ...githubHeaders(`token ${token}`), "content-type": "application/json" },
    body: JSON.stringify({ body: text }),
  });
  if (res.status !== 201) throw await githubFailure(res, `commenting on ${repo}#${number}`, now);
}
