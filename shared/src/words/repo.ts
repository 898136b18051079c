import { duetCommand, type Naming } from "../format/control.ts";
import { formatCount } from "../format/output.ts";
import type { RepoProvider, RepoResponse } from "../wire/repo-schemas.ts";

/** A room's repository in words every front end shares. */

/** The App cannot see the repository: where to install it (`link`: the App's install page, when its slug is configured). */
export function notInstalledText(repo: string, link: string | null): string {
  const owner = repo.split("/")[0];
  const where = link ? ` (${link})` : "";
  return `Duet's GitHub App cannot see ${repo}: install it on ${owner}${where} with access to that repository, or check the name.`;
}

/** An archived repository: GitHub keeps it read-only, so no branch could be pushed. */
export function archivedText(repo: string): string {
  return `${repo} is archived on GitHub, so it is read-only and Duet could not push a branch to it: unarchive it, or link another repository`;
}

/** Linking with no provider configured: what the operator sets. */
export const GITHUB_NOT_CONFIGURED =
  "Linking a repository needs Duet's GitHub App or a git remote, and neither is set up: an admin sets GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY and GITHUB_APP_SLUG, or DUET_GIT_REMOTE_URL and DUET_GIT_REMOTE_TOKEN, on the Worker (see docs/configuration.md).";

/** Where a room's repository is hosted, as people read it. */
const PROVIDER_NAME: Record<RepoProvider, string> = { github: "GitHub", git: "git remote" };

/** The examples below: what to give, as each front end takes it (a chat's text, Discord's option, the CLI's argument). */
const EXAMPLE = "e.g. `acme/widgets` or `acme/widgets@main`";

/** One line for each way `/duet repo …` can be typed wrong; none quotes what was typed. */
export const REPO_WORDS = {
  needsName: `Name the repository as owner/name, optionally @branch, ${EXAMPLE}.`,
  oneWord: `Give one repository, owner/name or owner/name@branch, with no spaces, ${EXAMPLE}.`,
  tooLong: (length: number, max: number) => `That is ${formatCount(length)} characters; a repository with its branch is at most ${formatCount(max)}, ${EXAMPLE}.`,
  /** `why` is the rule broken (repo-schemas.ts), without a full stop. */
  rule: (why: string) => `${why}; ${EXAMPLE}.`,
  /** What a person who may not link sees after "Only … may". */
  refusedWhat: "link or unlink a repository here.",
  /** What a person who may not sync sees after "Only … may": syncing runs git in the room's sandbox, as a command does. */
  refusedSync: "sync the repository here (it runs git in this room's sandbox, as a command does).",
  /** The Worker's refusal of a sync where nothing is linked, shown as it is by every front end. */
  noneToSync: `No repository is linked here, so there is nothing to sync: link one with the repo command first, ${EXAMPLE}.`,
} as const;

/** What just happened to the room's repository, for the reply that says so. */
export type RepoEvent = { did: "linked"; by: string } | { did: "unlinked"; by: string; was: string } | { did: "nothing-to-unlink" } | { did: "synced"; by: string };

const BRANCH = (view: { branch: string | null }, name: Naming) => (view.branch ? `branch ${name.command(view.branch)}` : "its default branch");

const SOURCE = { room: " (set here)", channel: ", from this thread's channel" } as const;

function when(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** `/duet repo`: the repository here, its branch, provider and source, and its checkout. */
export function describeRepo(view: RepoResponse, name: Naming): string {
  if (view.repo === null) return `No repository is linked here; ${duetCommand(name, "repo owner/name")} links one.`;
  const checkout = view.checkout ? `Checked out at ${name.command(view.checkout.sha.slice(0, 12))} on ${when(view.checkout.at)}.` : "Not checked out yet.";
  return `This room works on ${name.command(view.repo)} (${PROVIDER_NAME[view.provider]}), ${BRANCH(view, name)}${SOURCE[view.source]}. ${checkout}`;
}

/** The room's repository as a reply says it: as it is, or what just changed. */
export function describeRepoReply(view: RepoResponse, event: RepoEvent | undefined, name: Naming): string {
  if (!event) return describeRepo(view, name);
  switch (event.did) {
    case "linked":
      return view.repo === null ? describeRepo(view, name) : `${name.person(event.by)} linked ${name.command(view.repo)} (${PROVIDER_NAME[view.provider]}), ${BRANCH(view, name)}, to this room.`;
    case "unlinked": {
      const now = view.repo === null ? "" : ` It follows this thread's channel again: ${name.command(view.repo)}, ${BRANCH(view, name)}.`;
      return `${name.person(event.by)} unlinked ${name.command(event.was)} from this room.${now}`;
    }
    case "synced":
      return view.repo === null || view.checkout === null
        ? describeRepo(view, name)
        : `${name.person(event.by)} synced ${name.command(view.repo)}, ${BRANCH(view, name)}: repo/ is at ${name.command(view.checkout.sha.slice(0, 12))}.`;
    case "nothing-to-unlink":
      return view.repo === null
        ? "No repository is linked here; nothing changed."
        : `This thread has no repository of its own to unlink; it follows its channel's, ${name.command(view.repo)}, which is unlinked in the channel. Nothing changed.`;
  }
}

/** A checkout the room's turn just made (or fetched into), as the thread reads it. */
export function checkedOutText(repo: string, branch: string, sha: string, cloned: boolean): string {
  return `${cloned ? "Checked out" : "Fetched"} ${repo} (branch ${branch}, ${sha.slice(0, 7)}) in repo/.`;
}

/** A checkout that could not be made: the one line the thread reads; nothing was left half-made. */
export function checkoutFailedText(repo: string, why: string): string {
  return `The checkout of ${repo} failed: ${why.replace(/\.$/, "")}.`;
}
