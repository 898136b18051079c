import { BRANCH_MAX_CHARS, REPO_NAME_MAX_CHARS, REPO_OWNER_MAX_CHARS, branchProblem, repoNameProblem } from "../wire/repo-schemas.ts";
import { REPO_WORDS } from "../words/repo.ts";

/**
 * The words after `repo` in every front end (`/duet repo …` in Slack, the
 * `repo:` option in Discord, `duet repo ROOM …` in the CLI), read once here
 * so each refuses the same input with the same line before anything reaches
 * the Worker.
 */

/** What `/duet repo` was asked to change: link `repo` (on `branch`, else its default branch), unlink, or sync the checkout now. */
export type RepoChange = { repo: string; branch?: string } | "unlink" | "sync";

/** Nothing: show the room's repository. `change`: link or unlink. `problem`: one line saying what was wrong; nothing is sent. */
export type RepoArgs = { change?: RepoChange } | { problem: string };

/** Words that unlink, as people type them. */
const UNLINK_WORDS = new Set(["unlink", "remove"]);

/** The longest text worth reading as `owner/name@branch`: each part at its limit. */
const REPO_ARG_MAX_CHARS = REPO_OWNER_MAX_CHARS + 1 + REPO_NAME_MAX_CHARS + 1 + BRANCH_MAX_CHARS;

/** The word that checks the repository out (or fetches into the checkout) now. */
const SYNC_WORD = "sync";

/**
 * `owner/name`, `owner/name@branch`, `unlink` (or `remove`), `sync`, or nothing. The
 * problem lines never quote what was typed: it may be a mention, a fence or
 * a line break meant to break out of the reply.
 */
export function readRepoArgs(text: string): RepoArgs {
  // Not cleaned of invisible characters: one inside a name would make it read as another, so the rules refuse it.
  const clean = text.trim();
  if (!clean) return {};
  if (UNLINK_WORDS.has(clean.toLowerCase())) return { change: "unlink" };
  if (clean.toLowerCase() === SYNC_WORD) return { change: "sync" };
  if (clean.length > REPO_ARG_MAX_CHARS) return { problem: REPO_WORDS.tooLong(clean.length, REPO_ARG_MAX_CHARS) };
  if (/\s/.test(clean)) return { problem: REPO_WORDS.oneWord };
  // A branch may hold "@" (not "@{"), a repository name may not: the first "@" ends the name.
  const at = clean.indexOf("@");
  const repo = at < 0 ? clean : clean.slice(0, at);
  const branch = at < 0 ? undefined : clean.slice(at + 1);
  if (!repo) return { problem: REPO_WORDS.needsName };
  const repoWhy = repoNameProblem(repo);
  if (repoWhy) return { problem: REPO_WORDS.rule(repoWhy) };
  if (branch !== undefined) {
    const branchWhy = branchProblem(branch);
    if (branchWhy) return { problem: REPO_WORDS.rule(branchWhy) };
  }
  return { change: branch === undefined ? { repo } : { repo, branch } };
}
