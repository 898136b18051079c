import { DuetError, PR_DIFF_HEAD_LINES, type PrCredit, type PrOpened, type PrProposal } from "@duet/shared";
import type { OpenedPr, PrProposals, ProposalRecord } from "../control/pr-proposals.ts";
import type { CheckoutStore } from "../control/repo-checkout.ts";
import type { GithubAppConfig } from "../github/app-config.ts";
import { remoteUrl, type GitRemoteConfig } from "../git-remote/remote-config.ts";
import { cloneUrl } from "../github/clone-url.ts";
import type { InstallationTokens } from "../github/installation-tokens.ts";
import { deleteBranchAt, openPull } from "../github/pulls.ts";
import { installationOf } from "../github/repo-access.ts";
import type { RepoLink } from "../control/room-repo.ts";
import type { SandboxExecutor } from "../sandbox/types.ts";

/** How long reading the change may take (a large checkout's `git add -A` into a scratch index). */
const DIFF_TIMEOUT_MS = 60_000;
/** Where the slug of a branch stops. */
const SLUG_MAX_CHARS = 40;

/** `text` as one single-quoted shell word. */
const word = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The command that reads the checkout's change against `base`, in the
 * sandbox: the working tree (tracked, new and deleted files, .gitignore
 * respected) is staged into a scratch index in the command's own /tmp, so
 * the person's index in `repo/.git` is never touched. Prints the tree's sha,
 * the short stat, the numstat and the diff's head, between markers. In a
 * subshell: the room's shell keeps its working directory and environment
 * from one command to the next, and this one must change neither.
 */
export function changeScript(base: string): string {
  const b = word(base);
  const lines = [
    "set -eu",
    "cd ~",
    `[ -d repo/.git ] || { echo "there is no checkout at repo/: sync the repository first" >&2; exit 4; }`,
    "export GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0 GIT_INDEX_FILE=/tmp/duet-pr-index",
    `git -C repo cat-file -e ${b}^{commit} 2>/dev/null || { echo "repo/ does not hold the base commit ${base.replace(/[^0-9a-f]/g, "")}: sync the repository again" >&2; exit 5; }`,
    `git -C repo read-tree ${b}`,
    "git -C repo add -A",
    "T=$(git -C repo write-tree)",
    'echo "@@TREE $T"',
    `git -C repo diff --shortstat ${b} "$T"`,
    "echo @@FILES",
    `git -C repo -c core.quotePath=false diff --numstat ${b} "$T"`,
    "echo @@DIFF",
    `git -C repo diff ${b} "$T" | head -n ${PR_DIFF_HEAD_LINES}`,
  ];
  return `(\n${lines.join("\n")}\n)`;
}

/** What changeScript printed, read back. */
export interface Change {
  tree: string;
  diffstat: string;
  files: PrProposal["files"];
  diffHead: string;
}

export function parseChange(stdout: string): Change | null {
  const m = /^@@TREE ([0-9a-f]{40,64})\n([\s\S]*?)@@FILES\n([\s\S]*?)@@DIFF\n([\s\S]*)$/.exec(stdout);
  if (!m) return null;
  const files = m[3]
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [added, removed, ...path] = line.split("\t");
      return { path: path.join("\t"), added: added === "-" ? null : Number(added), removed: removed === "-" ? null : Number(removed) };
    });
  return { tree: m[1], diffstat: m[2].trim(), files, diffHead: m[4] };
}

/** A branch's slug: the title's words, lower case, hyphenated; "change" when none are left. */
export function slugOf(title: string): string {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, SLUG_MAX_CHARS)
    .replace(/-+$/, "");
  return slug || "change";
}

/** The commit's author: Duet made the commit, not the model. */
export const DUET_AUTHOR = { name: "Duet", email: "duet@users.noreply.github.com" };
/** What pushing a branch and opening a pull request on it need: nothing more than the one repository's contents and pull requests. */
export const PUSH_PERMISSIONS = { contents: "write" } as const;
export const PULL_PERMISSIONS = { pull_requests: "write" } as const;

/** The pull request's body: where it was asked for and by whom, and what it holds. */
export function prBody(proposal: PrProposal, userId: string, threadUrl: string | undefined): string {
  const where = threadUrl ? ` in ${threadUrl}` : "";
  const trailer = coAuthored(proposal);
  return [`Proposed by Duet, asked for by ${askerOf(proposal)}${where}; opened by ${userId}.`, "", "```", proposal.diffstat, "```", ...(trailer ? ["", trailer] : [])].join("\n");
}

/** The asker as the pull request names them: their name and platform id when the front end gave a name, else the id. */
export function askerOf(proposal: PrProposal): string {
  return proposal.credit ? `${proposal.credit.name} (${proposal.requestedBy})` : proposal.requestedBy;
}

/** `Co-authored-by: Name <address>`, GitHub's credit for a commit's co-author, when the asker's address is known. */
export function coAuthored(proposal: PrProposal): string | null {
  return proposal.credit?.email ? `Co-authored-by: ${proposal.credit.name} <${proposal.credit.email}>` : null;
}

/** A title for a change nobody named: what it touched. */
export function defaultTitle(files: PrProposal["files"]): string {
  if (files.length === 1) return `Update ${files[0].path}`.slice(0, 200);
  return `Update ${files.length} files`;
}

export interface RepoPrDeps {
  roomId: string;
  link: () => RepoLink | null;
  checkouts: CheckoutStore;
  proposals: PrProposals;
  executor: () => SandboxExecutor | null;
  redact: (text: string) => string;
  /** Writes the proposal and its audit entry together. */
  record: (proposal: PrProposal, keepOpened: boolean) => void;
  /** Writes the pull request the proposal became and its audit entry together. */
  opened: (proposal: PrProposal, pr: OpenedPr, userId: string) => void;
  /** Marks the proposal skipped and writes its audit entry together. */
  skipped: (held: ProposalRecord, userId: string) => void;
  github: () => { app: InstallationTokens; config: GithubAppConfig } | null;
  /** The plain git remote, used when there is no App: the branch is pushed and no pull request opened. */
  gitRemote: () => GitRemoteConfig | null;
  now?: () => number;
  newId?: () => string;
}

/**
 * From a change in the room's checkout to a pull request: `propose` reads
 * the change and keeps it as the room's one proposal; nothing leaves the
 * sandbox until a person opens it.
 */
export class RepoPr {
  private readonly now: () => number;
  private readonly newId: () => string;
  /** Opens under way, by proposal id. */
  private readonly opening = new Map<string, Promise<PrOpened>>();

  constructor(private readonly deps: RepoPrDeps) {
    this.now = deps.now ?? Date.now;
    this.newId = deps.newId ?? (() => crypto.randomUUID().replace(/-/g, "").slice(0, 8));
  }

  /** The change in `repo/` against the checkout's commit, as a proposal. 404 with no repository or checkout, 409 when nothing changed. */
  async propose(userId: string, title: string | undefined, credit?: PrCredit): Promise<PrProposal> {
    const link = this.deps.link();
    if (!link) throw new DuetError("not_found", "this room has no repository linked: link one first (PUT /api/rooms/:roomId/repo)");
    const checkout = this.deps.checkouts.of(link);
    if (!checkout) throw new DuetError("not_found", `${link.repo} is not checked out in this room yet: sync it first (POST /api/rooms/:roomId/repo/sync)`);
    const executor = this.deps.executor();
    if (!executor) throw new DuetError("sandbox_error", "this room has no sandbox to read the change from", { retryable: false });
    const run = await executor.exec(this.deps.roomId, changeScript(checkout.sha), DIFF_TIMEOUT_MS);
    const change = run.exitCode === 0 ? parseChange(run.stdout) : null;
    if (!change) {
      const why = run.stderr.split("\n").find((l) => l.trim() && !l.startsWith("[sandbox]")) ?? `exit code ${run.exitCode}`;
      if (run.exitCode === 4) throw new DuetError("not_found", why.slice(0, 300));
      throw new DuetError("sandbox_error", `the change in repo/ could not be read: ${why.slice(0, 300)}`, { retryable: false });
    }
    if (!change.files.length) throw new DuetError("nothing_changed", `nothing changed in repo/ since ${checkout.branch} at ${checkout.sha.slice(0, 7)}: there is no pull request to open`);
    const name = title ?? defaultTitle(change.files);
    const before = this.deps.proposals.current();
    // An opened pull request from this room on the same base is updated, not opened again.
    const same = before?.opened && before.proposal.repo === link.repo && before.proposal.base === checkout.branch;
    const proposal: PrProposal = {
      id: this.newId(),
      repo: link.repo,
      branch: same ? before.proposal.branch : `duet/${slugOf(name)}-${this.newId().slice(0, 6)}`,
      base: checkout.branch,
      baseSha: checkout.sha,
      title: name,
      diffstat: change.diffstat,
      diffHead: this.deps.redact(change.diffHead),
      files: change.files,
      requestedBy: userId,
      ...(credit ? { credit } : {}),
      // A branch on a plain git remote (no number) is pushed onto again, but updates no pull request.
      ...(same && before.opened && before.opened.number > 0 ? { updates: { url: before.opened.url, number: before.opened.number } } : {}),
      // With no App, opening pushes to the plain git remote: the proposal says a branch, not a pull request.
      ...(!this.deps.github() && this.deps.gitRemote() ? { branchOnly: true } : {}),
      at: this.now(),
    };
    this.deps.record(proposal, Boolean(same));
    return proposal;
  }

  /**
   * Opens the room's proposal `id` as a pull request: Duet commits the change
   * and pushes it to the proposal's branch (on the last pushed head when the
   * branch was pushed before: fast-forward only), then opens the pull request
   * unless the branch has one. Opening the same proposal again answers the
   * same pull request and pushes nothing.
   */
  open(id: string, userId: string, threadUrl: string | undefined): Promise<PrOpened> {
    // Two clicks at once on Open share one push and one pull request: the second waits for the first's answer.
    const running = this.opening.get(id);
    if (running) return running.then((pr) => ({ ...pr, already: true }));
    const made = this.openOnce(id, userId, threadUrl).finally(() => this.opening.delete(id));
    this.opening.set(id, made);
    return made;
  }

  /** Drops the room's proposal `id` so it cannot be opened; the pull request an earlier proposal opened stays, and the next proposal still updates it. */
  skip(id: string, userId: string): PrProposal {
    const held = this.held(id);
    if (held.opened?.proposalId === id) throw new DuetError("already_decided", `this change was already opened as ${held.opened.url}`);
    if (this.opening.has(id)) throw new DuetError("already_decided", "this change is being opened as a pull request now");
    if (!held.skipped) this.deps.skipped(held, userId);
    return held.proposal;
  }

  private held(id: string): ProposalRecord {
    const held = this.deps.proposals.current();
    if (!held || held.proposal.id !== id) throw new DuetError("not_found", `there is no pull request proposal ${id} in this room: propose one first (POST /api/rooms/:roomId/repo/pr)`);
    return held;
  }

  private async openOnce(id: string, userId: string, threadUrl: string | undefined): Promise<PrOpened> {
    const held = this.held(id);
    const { proposal, opened } = held;
    // The first click's answer again, so a front end can show it in the thread as that click would have.
    if (opened && opened.proposalId === id) {
      return { url: opened.url, number: opened.number, branch: proposal.branch, already: true, ...(opened.by ? { by: opened.by } : {}), ...(opened.updated ? { updated: true } : {}), ...(opened.number === 0 ? { branchOnly: true } : {}) };
    }
    if (held.skipped) throw new DuetError("already_decided", "this change was skipped, so it was not opened: propose it again");
    const github = this.deps.github();
    const remote = github ? null : this.deps.gitRemote();
    if (!github && !remote) throw new DuetError("github_not_configured", "no GitHub App (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY) or git remote (DUET_GIT_REMOTE_URL, DUET_GIT_REMOTE_TOKEN) is configured, so Duet cannot push");
    const executor = this.deps.executor();
    if (!executor?.push) throw new DuetError("sandbox_error", "this room's sandbox cannot push changes", { retryable: false });
    const trailer = coAuthored(proposal);
    const message = `${proposal.title}\n\nAsked for by ${askerOf(proposal)}${threadUrl ? ` in ${threadUrl}` : ""}.${trailer ? `\n\n${trailer}` : ""}`;
    const push = { repo: proposal.repo, branch: proposal.branch, baseSha: proposal.baseSha, parent: opened?.headSha ?? proposal.baseSha, message, author: DUET_AUTHOR, date: Math.floor(proposal.at / 1000) };
    if (!github) {
      // A plain git remote: the branch is pushed by Duet's own git step with the remote's token, and is what the thread gets.
      const url = remoteUrl(remote!, proposal.repo);
      const pushed = await executor.push(this.deps.roomId, { ...push, url, token: remote!.token });
      this.deps.opened(proposal, { url, number: 0, headSha: pushed.sha, proposalId: id, by: userId, ...(opened ? { updated: true } : {}) }, userId);
      return { url, number: 0, branch: proposal.branch, branchOnly: true, by: userId, ...(opened ? { updated: true } : {}) };
    }
    const now = this.now();
    const installation = await installationOf(github.app, github.config, proposal.repo, now);
    const name = proposal.repo.split("/")[1];
    const write = await github.app.token(installation, name, PUSH_PERMISSIONS);
    const pushed = await executor.push(this.deps.roomId, {
      ...push,
      url: cloneUrl(github.config.apiUrl, proposal.repo),
      token: write.token,
    });
    const pr = opened
      ? { url: opened.url, number: opened.number }
      : await openPull(
          github.app,
          { token: (await github.app.token(installation, name, PULL_PERMISSIONS)).token, repo: proposal.repo, head: proposal.branch, base: proposal.base, title: proposal.title, body: prBody(proposal, userId, threadUrl) },
          now,
        ).catch(async (err: unknown) => {
          // GitHub refused for good: the branch this push made would be an orphan without a pull request, so it goes (only while it is still at Duet's commit).
          // A refusal worth retrying keeps it, as the retry pushes the same commit and opens the pull request on it.
          if (err instanceof DuetError && !err.retryable) {
            await deleteBranchAt(github.app, { token: write.token, repo: proposal.repo, branch: proposal.branch, sha: pushed.sha }, now).catch((why: unknown) =>
              console.error(`the branch ${proposal.branch} on ${proposal.repo} was left without a pull request`, (why as Error).message),
            );
          }
          throw err;
        });
    this.deps.opened(proposal, { ...pr, headSha: pushed.sha, proposalId: id, by: userId, ...(opened ? { updated: true } : {}) }, userId);
    return { ...pr, branch: proposal.branch, by: userId, ...(opened ? { updated: true } : {}) };
  }
}
