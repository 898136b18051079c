import { ConfigError } from "@duet/shared";

/**
 * A plain git remote over HTTPS rooms' repositories go through when no
 * GitHub App is configured (Gitea, GitLab, a bare server behind
 * `git http-backend`): branches only, no pull requests.
 */
export interface GitRemoteConfig {
  /** DUET_GIT_REMOTE_URL: `https://HOST/…{repo}…`, `{repo}` standing for `owner/name`. */
  urlTemplate: string;
  /** DUET_GIT_REMOTE_TOKEN: sent by Duet's own git steps only, as Basic auth, never into the sandbox. */
  token: string;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Why `template` is no remote URL Duet can use, or null. */
export function remoteTemplateProblem(template: string): string | null {
  if (!template.includes("{repo}")) return "DUET_GIT_REMOTE_URL must name the repository with {repo} (e.g. https://git.example.com/{repo}.git)";
  let url: URL;
  try {
    url = new URL(template.replace(/\{repo\}/g, "owner/name"));
  } catch {
    return "DUET_GIT_REMOTE_URL must be a URL (e.g. https://git.example.com/{repo}.git)";
  }
  // The token goes in a header only Duet sends: never in plain text across a network.
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK.has(url.hostname))) return "DUET_GIT_REMOTE_URL must be https (http only on 127.0.0.1 or localhost)";
  if (url.username || url.password) return "DUET_GIT_REMOTE_URL must carry no credentials: put the token in DUET_GIT_REMOTE_TOKEN";
  if (url.search || url.hash) return "DUET_GIT_REMOTE_URL must have no query or fragment";
  return null;
}

/** The remote when its URL and token are both set; null when neither is; one line naming what is wrong otherwise. */
export function gitRemoteOf(urlTemplate: string | undefined, token: string | undefined): GitRemoteConfig | null {
  if (!urlTemplate && !token) return null;
  if (!urlTemplate || !token) throw new ConfigError("Worker misconfigured: a git remote needs both DUET_GIT_REMOTE_URL and DUET_GIT_REMOTE_TOKEN (set both, or neither)");
  const problem = remoteTemplateProblem(urlTemplate);
  if (problem) throw new ConfigError(`Worker misconfigured: ${problem}`);
  return { urlTemplate, token };
}

/** The URL git fetches `repo` (`owner/name`) from and pushes to, without credentials. */
export function remoteUrl(config: GitRemoteConfig, repo: string): string {
  return config.urlTemplate.replace(/\{repo\}/g, repo);
}
