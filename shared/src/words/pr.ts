import { duetCommand, type Naming } from "../format/control.ts";
import { codeBlock } from "../format/fence.ts";
import { formatCount } from "../format/output.ts";
import type { PrOpened, PrProposal } from "../wire/pr-schemas.ts";

/** A pull request proposed, opened or skipped, in words every front end shares. */

/** One line for each way `/duet pr …` can be typed wrong; none quotes what was typed. */
export const PR_WORDS = {
  tooLong: (length: number, max: number) => `That title is ${formatCount(length)} characters; a pull request's title is at most ${formatCount(max)}.`,
  /** No repository here: what links one. */
  noRepo: (name: Naming) => `No repository is linked here, so there is no change to propose; ${duetCommand(name, "repo owner/name")} links one.`,
  /** What a person who may not open or skip sees after "Only … may". */
  refusedWhat: "open or skip pull requests here; nothing was pushed.",
  /** The buttons' hint under a proposal. */
  hint: "Open pushes this change to its branch and opens the pull request; Skip drops it.",
  /** The buttons' hint under a proposal for a plain git remote, which has no pull requests. */
  branchHint: "Open pushes this change to its branch on the git remote (a plain git remote: no pull request is opened); Skip drops it.",
  /** Linked, not checked out: the next turn checks it out. */
  notCheckedOut: (repo: string) => `${repo} is not checked out here yet: ask Duet something and its turn checks it out first, then there is a change to propose.`,
  /** A second click on Open: the link, for the clicker. */
  alreadyOpened: (url: string) => `This change is already opened: ${url}`,
  /** Open pushed, and the proposal could not be changed to show the link: for the clicker, with what shows it to the thread. */
  openedNotShown: (url: string) => `The pull request is open: ${url}. Its link could not be shown in place of the buttons; Open again shows it there.`,
  /** The text beside a proposal's blocks, for a client that shows no blocks. */
  fallback: "Duet's pull request proposal",
  /** A click on a proposal that is gone (skipped, replaced, unknown): nothing happened. */
  stale: "That pull request proposal is no longer open to a click: nothing was pushed. `/duet pr` proposes the change as it is now.",
} as const;

/** "Nothing changed" and "not checked out" come from the Worker as one line: shown as a sentence. */
export function sentence(line: string): string {
  const text = line.trim().replace(/\.$/, "");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** The hint under a proposal's buttons: what Open does where the repository is hosted. */
export function prHint(p: PrProposal): string {
  return p.branchOnly ? PR_WORDS.branchHint : PR_WORDS.hint;
}

/** A proposal's one-line notification (the text a client shows for its blocks); `title` already escaped for the platform. */
export function prProposedNotice(p: PrProposal, title: string): string {
  return `${p.branchOnly ? "Branch" : "Pull request"} proposed: ${title}`;
}

/** The lines above the diff: who proposed what, where to, and what it holds. */
export function prProposalHead(p: PrProposal, name: Naming): string {
  const updates = p.updates ? ` (updates #${p.updates.number})` : "";
  // A plain git remote takes a branch, and has no pull request to open.
  const what = p.branchOnly ? `a branch on ${name.command(p.repo)} off ${name.command(p.base)} (a plain git remote: no pull request)` : `a pull request to ${name.command(p.repo)} (${name.command(p.base)})${updates}`;
  return [
    `${name.person(p.requestedBy)} proposes ${what}: ${name.command(p.title.replace(/`/g, "'"))}`,
    `Branch ${name.command(p.branch)} · ${p.diffstat}`,
  ].join("\n");
}

/**
 * The diff's first lines as a code block of at most `budget` characters
 * (`escape`: the platform's escaping of text inside it). The diff is the
 * model's data, not Duet's words: it is fenced, never formatted, and cut
 * at a line end when the platform's limit is near.
 */
export function prDiffBlock(diffHead: string, budget: number, escape: (text: string) => string = (t) => t): string {
  const lines = diffHead.replace(/\n$/, "").split("\n");
  for (let n = lines.length; n > 0; n--) {
    const more = n < lines.length ? `\n… ${formatCount(lines.length - n)} more lines` : "";
    const block = codeBlock(escape(lines.slice(0, n).join("\n") + more), "diff");
    if (block.length <= budget) return block;
  }
  // One line too long for the place: its start.
  return codeBlock(escape(`${lines[0].slice(0, Math.max(0, budget - 40))} …`), "diff");
}

/**
 * The proposal's message once decided: what became of it, in place of its
 * buttons. Once opened, the pull request's link: the one place the thread
 * shows it, so showing it again (a click whose first answer never reached
 * the thread) changes nothing.
 */
export function prDecidedLine(decision: { opened: PrOpened; by: string } | { skippedBy: string }, name: Naming): string {
  if ("skippedBy" in decision) return `Skipped by ${name.person(decision.skippedBy)}: nothing was pushed.`;
  return prOpenedText(decision.opened, decision.by, decision.opened.updated === true, name);
}

/** The pull request opened (or updated): who, its number, branch and link. */
export function prOpenedText(opened: PrOpened, by: string, updated: boolean, name: Naming): string {
  // A plain git remote has no pull requests: the branch is what there is to review.
  if (opened.branchOnly) return `${name.person(by)} pushed the change to branch ${name.command(opened.branch)} of ${opened.url} (a plain git remote: open a merge request there from that branch).`;
  const did = updated ? `updated pull request #${opened.number}` : `opened pull request #${opened.number}`;
  return `${name.person(by)} ${did} from ${name.command(opened.branch)}: ${opened.url}`;
}
