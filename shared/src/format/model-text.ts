import { linkHost, MARKDOWN_LINK } from "./links.ts";
import { sanitizeChatText } from "../text/sanitize.ts";

/**
 * The model's own words, made safe to show in any chat before a front end
 * adds its markup. The model writes what a steered prompt or a file it read
 * told it to, so its text is treated as a stranger's:
 *
 * - invisible and control characters go (a zero-width space can hide a word
 *   from a reader or a filter, a bidi override can reverse what a line says);
 * - mention syntax of either platform (`<@U123>`, `<@!123>`, `<@&456>`,
 *   `<#C1>`, `<!channel>`) becomes plain text (`@U123`, `@&456`, `#C1`,
 *   `@channel`), so it can neither ping nor show as someone's name;
 * - a Markdown link whose label does not name where it goes gets the host
 *   beside the label (`[Click here (evil.example)](https://evil.example/…)`),
 *   so a link cannot pass for another in Duet's voice.
 *
 * Code (``` blocks and `spans`) is left as written: it is shown as code,
 * where nothing pings or links. Plain `@everyone` and `@channel` stay words:
 * both bots post with mentions switched off.
 */
export function cleanModelText(text: string): string {
  return outsideCode(sanitizeChatText(text), (part) => nameLinks(defuseMentions(part)));
}

/** `<@…>`, `<@!…>`, `<@&…>`, `<#…>` and `<!…>` (with an optional `|label`) as the plain text they stand for. */
function defuseMentions(text: string): string {
  return text.replace(/<(@!?|@&|#|!)([A-Za-z0-9_^-]+)(?:\|([^<>\n]*))?>/g, (_, sigil: string, id: string, label?: string) => {
    const shown = sigil === "!" ? "@" : sigil === "@!" ? "@" : sigil;
    return label && /^[@#]/.test(label) ? label : `${shown}${label ?? id}`;
  });
}

function nameLinks(text: string): string {
  return text.replace(MARKDOWN_LINK, (_, label: string, url: string) => {
    const host = linkHost(url);
    return `[${label.includes(host) ? label : `${label} (${host})`}](${url})`;
  });
}

/** Applies `change` to the text outside code fences and code spans only. */
export function outsideCode(text: string, change: (part: string) => string): string {
  return text
    .split(/(```[\s\S]*?(?:```|$)|`[^`\n]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : change(part)))
    .join("");
}
