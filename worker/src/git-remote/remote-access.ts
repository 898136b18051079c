import { DuetError } from "@duet/shared";
import { remoteUrl, type GitRemoteConfig } from "./remote-config.ts";

/** How long the remote may take to say whether it serves the repository. */
const ACCESS_TIMEOUT_MS = 10_000;

/** Basic auth as Duet's git steps send it (sandbox/src/git/mirror.ts): any user name, the token as the password. */
export function remoteAuthorization(token: string): string {
  return `Basic ${btoa(`x-access-token:${token}`)}`;
}

/**
 * Checks that the remote serves `repo` to Duet's token, as git's first
 * request of a clone does (`info/refs` of upload-pack): a repository the
 * remote does not have, or will not show to the token, is a 404 with one
 * line; a remote that is down is a 502. Never sends the token anywhere but
 * the configured remote.
 */
export async function checkRemoteAccess(config: GitRemoteConfig, repo: string, fetcher: typeof fetch = fetch): Promise<void> {
  const url = `${remoteUrl(config, repo)}/info/refs?service=git-upload-pack`;
  let res: Response;
  try {
    res = await fetcher(url, { headers: { authorization: remoteAuthorization(config.token), "git-protocol": "version=2" }, redirect: "manual", signal: AbortSignal.timeout(ACCESS_TIMEOUT_MS) });
  } catch {
    throw new DuetError("git_remote_error", `the git remote (${new URL(url).host}) did not answer, so ${repo} could not be linked; try again later`);
  }
  await res.body?.cancel();
  if (res.ok) return;
  if (res.status === 401 || res.status === 403 || res.status === 404) {
    const line = `the git remote has no repository ${repo} that DUET_GIT_REMOTE_TOKEN may read: check the name, or the token's access`;
    throw new DuetError("not_found", line, { details: { repo: [line] } });
  }
  throw new DuetError("git_remote_error", `the git remote answered ${res.status} for ${repo}, so it could not be linked; try again later`);
}
