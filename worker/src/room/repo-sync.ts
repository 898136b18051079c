import { checkedOutText, checkoutFailedText, DuetError } from "@duet/shared";
import type { CheckoutRecord, CheckoutStore } from "../control/repo-checkout.ts";
import type { RepoLink } from "../control/room-repo.ts";
import type { GithubAppConfig } from "../github/app-config.ts";
import { remoteUrl, type GitRemoteConfig } from "../git-remote/remote-config.ts";
import { cloneUrl } from "../github/clone-url.ts";
import type { InstallationTokens } from "../github/installation-tokens.ts";
import { installationOf } from "../github/repo-access.ts";
import { repoPromptLine } from "../model/repo-prompt.ts";
import type { CheckoutDone, SandboxExecutor } from "../sandbox/types.ts";
import type { RepoForTurn } from "../turns/run-turn.ts";

/** How the repository's setup script is run: from the checkout, in a subshell (the room's working directory stays where it was). */
export const SETUP_COMMAND = "(cd ~/repo && bash .duet/setup.sh)";
/** The script's sha256, or nothing when there is none; in a subshell for the same reason. */
const SETUP_SHA_COMMAND = "(cd ~ && [ -f repo/.duet/setup.sh ] && sha256sum < repo/.duet/setup.sh | cut -c1-64) || true";
const SETUP_SHA_TIMEOUT_MS = 15_000;

/** What reading a repository needs from the App: contents, read-only (GitHub adds metadata: read itself). */
export const READ_PERMISSIONS = { contents: "read" } as const;

export interface RepoSyncDeps {
  roomId: string;
  /** The repository turns work on here (the room's own, else its channel's), or null. */
  link: () => RepoLink | null;
  store: CheckoutStore;
  /** The GitHub App, or null when none is configured. */
  github: () => { app: InstallationTokens; config: GithubAppConfig } | null;
  /** The plain git remote, used when there is no App; null when none is configured. */
  gitRemote: () => GitRemoteConfig | null;
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
    const remote = github ? null : this.deps.gitRemote();
    if (!github && !remote) throw new DuetError("invalid_request", `no GitHub App (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY) or git remote (DUET_GIT_REMOTE_URL, DUET_GIT_REMOTE_TOKEN) is configured, so Duet cannot fetch ${link.repo}`, { status: 503 });
    const executor = this.deps.executor();
    if (!executor?.checkout) throw new DuetError("sandbox_error", "this room's sandbox cannot check out repositories", { retryable: false });
    const { url, token } = github ? await this.githubRead(github, link.repo) : { url: remoteUrl(remote!, link.repo), token: remote!.token };
    const done = await executor.checkout(this.deps.roomId, { url, branch: link.branch, token, repo: link.repo }, signal);
    const record = this.deps.store.set({ repo: link.repo, linked: link.branch, branch: done.branch, sha: done.sha, at: this.now() });
    return { record, done };
  }

  /** The tokenless URL and a read-only token narrowed to the one repository, from the App. */
  private async githubRead(github: { app: InstallationTokens; config: GithubAppConfig }, repo: string): Promise<{ url: string; token: string }> {
    const installation = await installationOf(github.app, github.config, repo, this.now());
    const { token } = await github.app.token(installation, repo.split("/")[1], READ_PERMISSIONS);
    return { url: cloneUrl(github.config.apiUrl, repo), token };
  }

  /**
   * What a turn starts with about the repository: the system prompt's line;
   * a note for the thread when a checkout was made or failed now (the first
   * turn after a link); and, once per checkout, `.duet/setup.sh` to run first
   * when it is new or changed since it last ran (`commands`: the turn may run
   * any). Never throws: a failed checkout is said, and the turn goes on.
   */
  async forTurn(commands: boolean, signal?: AbortSignal): Promise<RepoForTurn> {
    const link = this.deps.link();
    if (!link) return { prompt: null, note: null, setup: null };
    let synced: Synced | null;
    try {
      synced = await this.sync(false, signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      const why = err instanceof DuetError ? err.message : "Duet failed on its side";
      if (!(err instanceof DuetError)) console.error("checkout failed", (err as Error).message);
      return { prompt: repoPromptLine(link.repo, link.branch ?? "the default branch", false), note: checkoutFailedText(link.repo, why), setup: null };
    }
    if (!synced) return { prompt: null, note: null, setup: null };
    const { record, done } = synced;
    const notes = done ? [checkedOutText(record.repo, record.branch, record.sha, done.cloned), ...(done.note ? [done.note] : [])] : [];
    return {
      prompt: repoPromptLine(record.repo, record.branch, true),
      note: notes.length ? notes.join(" ") : null,
      setup: commands && !record.setupChecked ? await this.setupToRun(record, signal) : null,
    };
  }

  /** The setup command when the checkout's `.duet/setup.sh` differs from the one that last ran; marks the checkout looked at. */
  private async setupToRun(record: CheckoutRecord, signal?: AbortSignal): Promise<string | null> {
    const executor = this.deps.executor();
    if (!executor) return null;
    const found = await executor.exec(this.deps.roomId, SETUP_SHA_COMMAND, SETUP_SHA_TIMEOUT_MS, signal).catch(() => null);
    // Unknown (the sandbox failed): looked at again next turn.
    if (!found || found.exitCode !== 0) return null;
    const sha = /^[0-9a-f]{64}$/.exec(found.stdout.trim())?.[0] ?? null;
    const run = sha !== null && sha !== record.setupSha;
    this.deps.store.setupLooked(run ? sha : null);
    return run ? SETUP_COMMAND : null;
  }
}
