import { chunkMessage } from "../format/chunk.ts";

/**
 * A live answer longer than one message (Discord: 2,000 characters) continues
 * in more messages. The split is chunkMessage's, so a code block cut between two
 * messages is closed in one and reopened in the next. As the text grows only the
 * last page changes, until it fills and a new one begins: earlier pages are cut
 * from a window that no longer moves.
 */

/** The pages `text` takes; never none, so there is always a message to show progress in. */
export function pagesOf(text: string, maxChars: number, empty: string): string[] {
  const pages = chunkMessage(text, maxChars);
  return pages.length ? pages : [empty];
}

export interface PageChanges {
  /** Messages already shown whose content changed. */
  edits: { index: number; content: string }[];
  /** New messages to post after the shown ones, in order. */
  posts: string[];
}

/** What to edit and post so that `shown` becomes `next`. */
export function pageChanges(shown: readonly string[], next: readonly string[]): PageChanges {
  const edits: PageChanges["edits"] = [];
  next.forEach((content, index) => {
    if (index < shown.length && shown[index] !== content) edits.push({ index, content });
  });
  return { edits, posts: next.slice(shown.length) };
}
