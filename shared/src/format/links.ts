/**
 * Markdown links in the model's text, shown with where they go. A steered
 * model could write `[Click here](https://evil.example/login)`, which chat
 * would show as a link named only "Click here", in Duet's voice; the address
 * beside the label lets a reader see where it leads.
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

/**
 * Each Markdown link outside code becomes `label (<url>)`: the address in full,
 * in angle brackets so Discord shows no preview. Code (``` blocks and `spans`)
 * is left as it is.
 */
export function unmaskLinks(text: string): string {
  return text
    .split(/(```[\s\S]*?(?:```|$)|`[^`\n]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(MARKDOWN_LINK, (_, label: string, url: string) => `${label} (<${url}>)`)))
    .join("");
}
