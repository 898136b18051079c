/**
 * The system prompt's line about the room's repository: which one, which
 * branch, and that its checkout is in `repo/`; or that the checkout failed,
 * so the model does not take a missing `repo/` for the code.
 */
export function repoPromptLine(repo: string, branch: string, checkedOut: boolean): string {
  if (!checkedOut) {
    return `This room is linked to the repository ${repo} (branch ${branch}), but its checkout could not be made: repo/ may be missing or out of date.`;
  }
  return `This room works on the repository ${repo}, branch ${branch}: a clone of it with its history is in repo/ (relative to the workspace, your starting directory). Work on the code there; its origin needs no credentials from you, and pushing is Duet's step, not a command's. When your commands changed files and the change is ready for review, end your answer with <pr>a short title</pr>: Duet then proposes it as a pull request for a person to open.`;
}
