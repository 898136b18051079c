/**
 * Markdown links in the model's text, shown with where they go. A steered
 * model could write `[Click here](https://evil.example/login)`, which chat
 * would show as a link named only "Click here", in Duet's voice; the host
 * beside the label (format/model-text.ts) lets a reader see where it leads.
 */

/** `[label](url)` and `[label](<url>)`, web addresses only. */
export const MARKDOWN_LINK = /\[([^\]\n]+)\]\(<?(https?:\/\/[^)\s>]+)>?\)/g;

/** The host a link goes to (`evil.example`), or the address itself when it does not parse. */
export function linkHost(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}
