import { archivedText, DuetError, notInstalledText } from "@duet/shared";
import type { GithubAppConfig } from "./app-config.ts";
import { githubFailure } from "./github-errors.ts";
import { githubHeaders, type InstallationTokens, type TokenPermissions } from "./installation-tokens.ts";

/** Where people install the App: github.com's `/apps/SLUG`, a GitHub Enterprise Server's `/github-apps/SLUG`. */
export function installLink(config: GithubAppConfig): string | null {
  if (!config.slug) return null;
  const api = new URL(config.apiUrl);
  return api.hostname === "api.github.com"
    ? `https://github.com/apps/${config.slug}/installations/new`
    : `${api.origin}/github-apps/${config.slug}/installations/new`;
}

/**
 * Refuses a repository GitHub has archived: it is read-only, so Duet could
 * clone it but never push its branch. Asked with a read token narrowed to
 * the repository (the checkout's own, so it is minted once for both).
 */
export async function refuseArchived(app: InstallationTokens, installation: number, repo: string, permissions: TokenPermissions, now: number): Promise<void> {
  const { token } = await app.token(installation, repo.split("/")[1], permissions);
  const res = await app.call(`/repos/${repo}`, { headers: githubHeaders(`token ${token}`) });
  if (!res.ok) throw await githubFailure(res, "reading the repository", now);
  const archived = ((await res.json().catch(() => null)) as { archived?: unknown } | null)?.archived;
  if (archived === true) throw new DuetError("invalid_request", archivedText(repo), { status: 409, details: { repo: [archivedText(repo)] } });
}

/**
 * The installation through which the App sees `repo` (`owner/name`); a
 * repository it cannot see (not installed there, or no such repository) is
 * a 404 whose line says where to install the App.
 */
export async function installationOf(app: InstallationTokens, config: GithubAppConfig, repo: string, now: number): Promise<number> {
  const res = await app.call(`/repos/${repo}/installation`, { headers: githubHeaders(`Bearer ${await app.appJwt()}`) });
  if (res.status === 200) {
    const id = ((await res.json().catch(() => null)) as { id?: unknown } | null)?.id;
    if (typeof id === "number") return id;
    throw new DuetError("github_error", "GitHub answered an installation without its id");
  }
  if (res.status === 404) {
    const line = notInstalledText(repo, installLink(config));
    throw new DuetError("not_found", line, { details: { repo: [line] } });
  }
  throw await githubFailure(res, "looking up the App's installation", now);
}
