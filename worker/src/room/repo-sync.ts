import { DuetError } from "@duet/shared";
import type { CheckoutRecord, CheckoutStore } from "../control/repo-checkout.ts";
import type { RepoLink } from "../control/room-repo.ts";
import type { GithubAppConfig } from "../github/app-config.ts";
import { cloneUrl } from "../github/clone-url.ts";
import type { InstallationTokens } from "../github/installation-tokens.ts";
import { installationOf } from "../github/repo-access.ts";
import type { CheckoutDone, SandboxExecutor } from "../sandbox/types.ts";

/** What reading a repository needs from the App: contents, read-only (GitHub adds metadata: read itself). */
export const READ_PERMISSIONS = { contents: "read" } as const;

export interface RepoSyncDeps {
  roomId: string;
  /** The repository turns work on here (the room's own, else its channel's), or null. */
  link: () => RepoLink | null;
  store: CheckoutStore;
  /** The GitHub App, or null when none is configured. */
  github: () => { app: InstallationTokens; config: GithubAppConfig } | null;
  executor: () => SandboxExecutor | null;
  now?: () => number;
}

/** A checkout as a sync leaves it: the record, whether one was made now, and the executor's note. */
export interface Synced {
  record: CheckoutRecord;
  done: CheckoutDone | null;
}

/**
 * Makes the room's checkout: mints a read-only token narrowed to the one
 * repository, and hands it with the tokenless URL to the sandbox provider,
 * which keeps it out of the sandbox (see sandbox/src/git/). One at a time
 * per room: a turn and `/repo/sync` asking together share one checkout.
 */
export class RepoSync {
  private inFlight: Promise<Synced> | null = null;
  private readonly now: () => number;

  constructor(private readonly deps: RepoSyncDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * The checkout for the room's link, made when there is none for it (or,
   * `again`, fetched anew). Null when the room has no repository. Throws a
   * DuetError with one line when it could not be made.
   */
  async sync(again: boolean, signal?: AbortSignal): Promise<Synced | null> {
    const link = this.deps.link();
    if (!link) return null;
    const held = this.deps.store.of(link);
    if (held && !again && !this.inFlight) return { record: held, done: null };
    this.inFlight ??= this.checkout(link, signal).finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  private async checkout(link: RepoLink, signal?: AbortSignal): Promise<Synced> {
    const github = this.deps.github();
    if (!github) throw new DuetError("invalid_request", `no GitHub App is configured (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY), so Duet cannot fetch ${link.repo}`, { status: 503 });
    const executor = this.deps.executor();
    if (!executor?.checkout) throw new DuetError("sandbox_error", "this room's sandbox cannot check out repositories", { retryable: false });
    const installation = await installationOf(github.app, github.config, link.repo, this.now());
    const { token } = await github.app.token(installation, link.repo.split("/")[1], READ_PERMISSIONS);
    const done = await executor.checkout(this.deps.roomId, { url: cloneUrl(github.config.apiUrl, link.repo), branch: link.branch, token, repo: link.repo }, signal);
    const record: CheckoutRecord = { repo: link.repo, linked: link.branch, branch: done.branch, sha: done.sha, at: this.now() };
    this.deps.store.set(record);
    return { record, done };
  }
}
