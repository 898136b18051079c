import {
  channelOfThread,
  DuetError,
  GITHUB_NOT_CONFIGURED,
  REPO_WORDS,
  type MessageRequest,
  type PrOpened,
  type PrOpenRequest,
  type PrProposal,
  type PrProposeRequest,
  type PrSkipRequest,
  type RepoRequest,
  type RepoResponse,
} from "@duet/shared";
import type { WorkerConfig } from "../config.ts";
import { PrProposals } from "../control/pr-proposals.ts";
import { CheckoutStore } from "../control/repo-checkout.ts";
import type { RoomControl } from "../control/room-control.ts";
import { RoomRepoStore, type RepoLink } from "../control/room-repo.ts";
import { checkRemoteAccess } from "../git-remote/remote-access.ts";
import { InstallationTokens } from "../github/installation-tokens.ts";
import { installationOf, refuseArchived } from "../github/repo-access.ts";
import type { PrEvent } from "../github/webhook-events.ts";
import type { Outbox } from "../outbox/outbox.ts";
import type { Outcome } from "../outcome.ts";
import type { WarmTracker } from "../sandbox/warm-tracker.ts";
import type { TurnLedger } from "../storage/turn-ledger.ts";
import type { RepoForTurn } from "../turns/run-turn.ts";
import { PrTalk, type PrTalkResult } from "./pr-talk.ts";
import { RepoPr } from "./repo-pr.ts";
import { READ_PERMISSIONS, RepoSync } from "./repo-sync.ts";
import type { RoomTree } from "./room-tree.ts";

/** What the room lends its code: storage, settings, its tree, audit and outbox, and the rest of the room by closure. */
export interface RoomCodeParts {
  storage: DurableObjectStorage;
  roomId: string;
  config: WorkerConfig;
  tree: RoomTree;
  control: RoomControl;
  outbox: Outbox;
  /** Where GitHub's news of the pull request is kept for delivery. */
  ledger: TurnLedger;
  redact: (text: string) => string;
  executor: () => WarmTracker | null;
  /** The room is in its workspace's list (a link is a setting the home view shows). */
  ensureListed: () => Promise<void>;
  /** Tells the channel's thread rooms what they now inherit. */
  handDown: (what: string) => Promise<void>;
  /** Asks the room a question as a turn (GitHub's review comments become one). */
  ask: (req: MessageRequest) => Promise<Outcome>;
  /** Records which room opened a pull request, for GitHub's webhook; absent without one. */
  pullIndex?: (repo: string, number: number, roomId: string) => Promise<void>;
}

/**
 * The team's code in one room: the repository linked here (or inherited from
 * the channel), the checkout at `repo/` the model works in, the pull request
 * proposed from it and what GitHub says of it afterwards.
 */
export class RoomCode {
  readonly repo: RoomRepoStore;
  /** What `repo/` in the workspace holds, and the one checkout at a time that makes it. */
  readonly checkouts: CheckoutStore;
  /** The room's pull request proposal, and the pull request it became. */
  readonly proposals: PrProposals;
  private readonly sync: RepoSync;
  private readonly pr: RepoPr;
  /** GitHub's webhook telling the room of its pull request. */
  private readonly talk: PrTalk;
  /** The GitHub App's tokens, made on first use. */
  private githubApp?: InstallationTokens;

  constructor(private readonly parts: RoomCodeParts) {
    const { storage, roomId, config, tree, control, outbox, redact, executor } = parts;
    this.repo = new RoomRepoStore(storage, channelOfThread(roomId) ? () => tree.inheritedRepo() : () => null, config.github || !config.gitRemote ? "github" : "git");
    this.checkouts = new CheckoutStore(storage);
    this.proposals = new PrProposals(storage);
    const github = () => (config.github ? { app: this.github(), config: config.github } : null);
    this.sync = new RepoSync({ roomId, link: () => this.link(), store: this.checkouts, github, gitRemote: () => config.gitRemote, executor });
    this.pr = new RepoPr({
      roomId,
      link: () => this.link(),
      checkouts: this.checkouts,
      proposals: this.proposals,
      executor,
      redact,
      record: (proposal, keepOpened) =>
        storage.transactionSync(() => {
          this.proposals.set({ proposal, opened: keepOpened ? (this.proposals.current()?.opened ?? null) : null });
          control.audit.record([{ at: proposal.at, kind: "pr-proposed", repo: proposal.repo, branch: proposal.branch, title: proposal.title, requestedBy: proposal.requestedBy }]);
        }),
      opened: (proposal, pr, userId) =>
        storage.transactionSync(() => {
          // The conversation it came from, so GitHub's news of it lands in that thread.
          this.proposals.set({ proposal, opened: { ...pr, target: outbox.latestTarget() } });
          control.audit.record([{ at: Date.now(), kind: "pr-opened", repo: proposal.repo, branch: proposal.branch, url: pr.url, requestedBy: userId }]);
        }),
      skipped: (held, userId) =>
        storage.transactionSync(() => {
          this.proposals.set({ ...held, skipped: true });
          control.audit.record([{ at: Date.now(), kind: "pr-skipped", repo: held.proposal.repo, branch: held.proposal.branch, title: held.proposal.title, requestedBy: userId }]);
        }),
      github,
      gitRemote: () => config.gitRemote,
    });
    this.talk = new PrTalk({
      roomId,
      proposals: this.proposals,
      ledger: parts.ledger,
      outbox,
      redact,
      audit: (entry) => control.audit.record([entry]),
      ask: parts.ask,
      github,
    });
  }

  /** The repository worked on here and where it comes from. A thread room asks its channel once, if no turn has yet. */
  async view(): Promise<RepoResponse> {
    if (channelOfThread(this.parts.roomId)) await this.parts.tree.ensureRegistered();
    return this.withCheckout(this.repo.view());
  }

  /**
   * Links a repository to this room (two rows: the link and its audit entry),
   * then hands it down as the run policy is.
   */
  async set(req: RepoRequest): Promise<RepoResponse> {
    const { config, storage, control } = this.parts;
    await this.parts.ensureListed();
    const link = { repo: req.repo, branch: req.branch ?? null };
    // Without a GitHub App or a git remote nothing could clone it: refused with what to set. A repository the App
    // cannot see is refused with where to install it; one the remote does not serve to its token, with that.
    if (config.github) {
      const installation = await installationOf(this.github(), config.github, link.repo, Date.now());
      await refuseArchived(this.github(), installation, link.repo, READ_PERMISSIONS, Date.now());
    }
    else if (config.gitRemote) await checkRemoteAccess(config.gitRemote, link.repo);
    else throw new DuetError("github_not_configured", GITHUB_NOT_CONFIGURED);
    storage.transactionSync(() => {
      this.repo.set(link);
      control.audit.record([{ at: Date.now(), kind: "repo", repo: link.repo, ...(link.branch ? { branch: link.branch } : {}), requestedBy: req.userId }]);
    });
    await this.parts.handDown("repository");
    return this.withCheckout(this.repo.view());
  }

  /**
   * Unlinks this room's own repository (audited when there was one), then
   * hands that down; a thread room then follows its channel's again.
   */
  async remove(userId?: string): Promise<RepoResponse> {
    const own = this.repo.own();
    if (own) {
      this.parts.storage.transactionSync(() => {
        this.repo.wipe();
        this.parts.control.audit.record([{ at: Date.now(), kind: "repo-removed", repo: own.repo, ...(userId ? { requestedBy: userId } : {}) }]);
      });
      await this.parts.handDown("repository");
    }
    return this.view();
  }

  /**
   * Checks the repository out at `repo/` now, or fetches into the checkout
   * there (`/repo/sync`); the view with the new checkout. 404 when the room
   * has none; a checkout that could not be made is its one-line error.
   */
  async syncNow(): Promise<RepoResponse> {
    if (channelOfThread(this.parts.roomId)) await this.parts.tree.ensureRegistered();
    const synced = await this.sync.sync(true);
    if (!synced) throw new DuetError("not_found", REPO_WORDS.noneToSync);
    return this.view();
  }

  /** The checkout a turn works in, made first if the link changed (see repo-sync.ts). */
  forTurn(canRun: boolean, signal?: AbortSignal): Promise<RepoForTurn> {
    return this.sync.forTurn(canRun, signal);
  }

  /** Reads the change in `repo/` against its checkout and keeps it as the room's pull request proposal (see repo-pr.ts). */
  propose(req: PrProposeRequest): Promise<PrProposal> {
    return this.pr.propose(req.userId, req.title, req.credit);
  }

  /** Commits and pushes the proposal's change and opens its pull request (see repo-pr.ts). */
  async open(id: string, req: PrOpenRequest): Promise<PrOpened> {
    const opened = await this.pr.open(id, req.userId, req.threadUrl);
    // Recorded after every open (opening again answers the same pull request), so a failed write is made good by a retry.
    const repo = this.proposals.current()?.proposal.repo;
    // A branch on a plain git remote has no pull request for GitHub to tell of.
    if (repo && this.parts.pullIndex && !opened.branchOnly) await this.parts.pullIndex(repo, opened.number, this.parts.roomId);
    return opened;
  }

  /** Drops the proposal `id` unopened (see repo-pr.ts). */
  skip(id: string, req: PrSkipRequest): PrProposal {
    return this.pr.skip(id, req.userId);
  }

  /** GitHub says something of the room's pull request (see pr-talk.ts). */
  event(event: PrEvent, deliveryId: string): Promise<PrTalkResult> {
    return this.talk.event(event, deliveryId);
  }

  /** The workspace went with the sandbox: nothing is checked out or proposed any more. The link goes only when `link`. */
  wipe(link: boolean): void {
    this.checkouts.wipe();
    this.proposals.wipe();
    if (link) this.repo.wipe();
  }

  /** The view with the checkout made for its link, if one was. */
  private withCheckout(view: RepoResponse): RepoResponse {
    if (view.repo === null) return view;
    const made = this.checkouts.of({ repo: view.repo, branch: view.branch });
    return { ...view, checkout: made ? { sha: made.sha, at: made.at } : null };
  }

  /** The repository turns work on here (the room's own, else its channel's), or null. */
  private link(): RepoLink | null {
    const view = this.repo.view();
    return view.repo === null ? null : { repo: view.repo, branch: view.branch };
  }

  /** The GitHub App's tokens, made on first use (only called with an App configured). */
  private github(): InstallationTokens {
    const github = this.parts.config.github!;
    this.githubApp ??= new InstallationTokens({ appId: github.appId, privateKey: github.privateKey, apiUrl: github.apiUrl });
    return this.githubApp;
  }
}
