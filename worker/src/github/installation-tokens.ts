import { DuetError } from "@duet/shared";
import { appJwt, importAppKey } from "./app-jwt.ts";
import { githubFailure } from "./github-errors.ts";

/** What a step may do with the repository: GitHub's permission names (contents, pull_requests, metadata…) and a level. */
export type TokenPermissions = Readonly<Record<string, "read" | "write">>;

/** An installation token as the caller uses it: the secret and when GitHub stops accepting it. */
export interface InstallationToken {
  token: string;
  expiresAt: number;
}

/** A token is used until this long before GitHub expires it, so a step that starts with it can finish with it. */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60 * 1000;

export interface GithubAppOptions {
  appId: string;
  /** The PEM of GITHUB_APP_PRIVATE_KEY. */
  privateKey: string;
  /** GITHUB_API_URL, without a trailing slash: https://api.github.com, a GitHub Enterprise Server's /api/v3, or a fake. */
  apiUrl: string;
  fetch?: typeof fetch;
  now?: () => number;
}

/** The headers every GitHub REST call carries. */
export function githubHeaders(authorization: string): Record<string, string> {
  return {
    authorization,
    accept: "application/vnd.github+json",
    "x-github-api-version": "2022-11-28",
    "user-agent": "duet-github-app",
  };
}

/**
 * Mints installation tokens, each narrowed to one repository and the
 * permissions one step needs, and keeps each (per installation, repository
 * and permissions) until TOKEN_REFRESH_MARGIN_MS before it expires; callers
 * asking at once share one request. Nothing here logs a token: errors carry
 * GitHub's status and message only.
 */
export class InstallationTokens {
  private key?: Promise<CryptoKey>;
  private readonly cache = new Map<string, Promise<InstallationToken>>();
  private readonly fetch: typeof fetch;
  private readonly now: () => number;

  constructor(private readonly opts: GithubAppOptions) {
    this.fetch = opts.fetch ?? ((input, init) => fetch(input, init));
    this.now = opts.now ?? Date.now;
  }

  /** The App's JWT now, for /app routes (the installation of a repository, minting tokens). */
  async appJwt(): Promise<string> {
    this.key ??= importAppKey(this.opts.privateKey);
    return appJwt(await this.key, this.opts.appId, this.now());
  }

  /** A token for `repo` (the name, without its owner) in `installationId`, allowed `permissions` and nothing more. */
  async token(installationId: number, repo: string, permissions: TokenPermissions, renewing = false): Promise<InstallationToken> {
    const narrowed = Object.fromEntries(Object.entries(permissions).sort(([a], [b]) => a.localeCompare(b)));
    const key = JSON.stringify([installationId, repo, narrowed]);
    const held = this.cache.get(key);
    if (held) {
      // A mint that fails fails for everyone waiting on it (and is not kept), so a refusal is not asked again at once.
      const token = await held;
      if (renewing || token.expiresAt - TOKEN_REFRESH_MARGIN_MS > this.now()) return token;
      if (this.cache.get(key) === held) this.cache.delete(key);
      return this.token(installationId, repo, permissions, true);
    }
    const minting = this.mint(installationId, repo, narrowed);
    this.cache.set(key, minting);
    minting.catch(() => this.cache.get(key) === minting && this.cache.delete(key));
    return minting;
  }

  private async mint(installationId: number, repo: string, permissions: TokenPermissions): Promise<InstallationToken> {
    const res = await this.call(`/app/installations/${installationId}/access_tokens`, {
      method: "POST",
      headers: { ...githubHeaders(`Bearer ${await this.appJwt()}`), "content-type": "application/json" },
      body: JSON.stringify({ repositories: [repo], permissions }),
    });
    if (res.status !== 201) throw await githubFailure(res, "minting an installation token", this.now());
    const body = (await res.json().catch(() => null)) as { token?: unknown; expires_at?: unknown } | null;
    const expiresAt = typeof body?.expires_at === "string" ? Date.parse(body.expires_at) : NaN;
    if (typeof body?.token !== "string" || !Number.isFinite(expiresAt)) {
      throw new DuetError("github_error", "GitHub answered a token request without a token and its expiry");
    }
    return { token: body.token, expiresAt };
  }

  /** A GitHub REST call: its answer, or a retryable github_error when GitHub could not be reached. */
  async call(path: string, init: RequestInit): Promise<Response> {
    try {
      return await this.fetch(`${this.opts.apiUrl}${path}`, init);
    } catch (err) {
      throw new DuetError("github_error", `GitHub could not be reached: ${(err as Error).message}`.slice(0, 300));
    }
  }
}
