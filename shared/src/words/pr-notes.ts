/** What the room's thread is told of its pull request by GitHub, and how a comment on it is put to the model. */

/** `repo`#`number` merged, by whom, with its link. */
export function prMergedText(repo: string, number: number, by: string, url: string): string {
  return `🎉 ${repo}#${number} was merged by ${by} on GitHub.${url ? ` ${url}` : ""}`;
}

/** `repo`#`number` closed without merging, by whom, with its link. */
export function prClosedText(repo: string, number: number, by: string, url: string): string {
  return `${repo}#${number} was closed without merging by ${by} on GitHub.${url ? ` ${url}` : ""}`;
}

/** Where a GitHub comment stands, for the model and the thread: the pull request, and a review comment's file and line. */
export interface CommentPlace {
  repo: string;
  number: number;
  author: string;
  url: string;
  path?: string;
  line?: number;
}

/**
 * A comment that mentions the App, as the room's question: who wrote it and
 * where, then the comment itself as quoted lines, so it reads as something
 * a person wrote on GitHub rather than as words of Duet's.
 */
export function prCommentAsk(place: CommentPlace, comment: string): string {
  const where = place.path ? ` on ${place.path}${place.line ? ` line ${place.line}` : ""}` : "";
  const quoted = comment
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
  return `${place.author} commented on pull request ${place.repo}#${place.number}${where} on GitHub${place.url ? ` (${place.url})` : ""}, mentioning Duet. Their comment, quoted:\n${quoted}`;
}

/** A comment that mentions the App, as the thread sees it above Duet's answer: who wrote it, where, and what (quoted). */
export function prCommentNote(place: CommentPlace, comment: string): string {
  const where = place.path ? `, ${place.path}${place.line ? ` line ${place.line}` : ""}` : "";
  const quoted = comment
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
  return `${place.author} on GitHub (${place.repo}#${place.number}${where})${place.url ? ` ${place.url}` : ""}:\n${quoted}`;
}

/** The answer as a reply on the pull request: addressed to the commenter. */
export function prReplyText(author: string, answer: string): string {
  return author === "someone" ? answer : `@${author} ${answer}`;
}
