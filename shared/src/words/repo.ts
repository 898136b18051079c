/** A room's repository in words every front end shares. */

/** The App cannot see the repository: where to install it (`link`: the App's install page, when its slug is configured). */
export function notInstalledText(repo: string, link: string | null): string {
  const owner = repo.split("/")[0];
  const where = link ? ` (${link})` : "";
  return `Duet's GitHub App cannot see ${repo}: install it on ${owner}${where} with access to that repository, or check the name.`;
}
