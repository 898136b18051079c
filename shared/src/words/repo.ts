/** A room's repository in words every front end shares. */

/** The App cannot see the repository: where to install it (`link`: the App's install page, when its slug is configured). */
export function notInstalledText(repo: string, link: string | null): string {
  const owner = repo.split("/")[0];
  const where = link ? ` (${link})` : "";
  return `Duet's GitHub App cannot see ${repo}: install it on ${owner}${where} with access to that repository, or check the name.`;
}

/** A checkout the room's turn just made (or fetched into), as the thread reads it. */
export function checkedOutText(repo: string, branch: string, sha: string, cloned: boolean): string {
  return `${cloned ? "Checked out" : "Fetched"} ${repo} (branch ${branch}, ${sha.slice(0, 7)}) in repo/.`;
}

/** A checkout that could not be made: the one line the thread reads; nothing was left half-made. */
export function checkoutFailedText(repo: string, why: string): string {
  return `The checkout of ${repo} failed: ${why.replace(/\.$/, "")}.`;
}
