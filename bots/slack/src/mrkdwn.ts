/**
 * Slack's text dialect both ways. Outgoing: models write Markdown, Slack reads
 * mrkdwn (`*bold*`, `<url|label>`, fences without a language) and needs `&`, `<`,
 * `>` escaped everywhere, code included, or `<!channel>` in a command's output
 * would ping the whole channel. Incoming: Slack escapes what people type and
 * wraps mentions and links in `<...>`; the Worker gets plain text.
 */

import { MARKDOWN_LINK } from "@duet/shared";

/** Escapes the three characters Slack treats as control sequences. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Converts Markdown outside code to mrkdwn; code spans and fences are only escaped. */
export function markdownToMrkdwn(markdown: string): string {
  const out: string[] = [];
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  let inFence = false;
  for (const line of lines) {
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      // Slack shows a fence's language tag as code, so it is dropped.
      out.push("```");
      inFence = !inFence;
      continue;
    }
    out.push(inFence ? escapeSlack(line) : convertLine(line));
  }
  if (inFence) {
    while (out.length && out[out.length - 1].trim() === "") out.pop();
    out.push("```");
  }
  return out.join("\n").trim();
}

function convertLine(line: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading) return `*${convertInline(heading[1]).replace(/^\*(.*)\*$/, "$1")}*`;
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet) return `${bullet[1]}• ${convertInline(bullet[2])}`;
  return convertInline(line);
}

/** Inline Markdown outside code spans: bold, italics, strike, links. */
function convertInline(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? escapeSlack(part) : convertPlain(part)))
    .join("");
}

function convertPlain(text: string): string {
  const links: string[] = [];
  // Links are set aside first so their URLs are not touched by the emphasis rules.
  // The label already names the host it goes to (cleanModelText); here it only becomes Slack's link.
  let s = text.replace(MARKDOWN_LINK, (_, label: string, url: string) => {
    links.push(`<${url.replace(/[<>|]/g, encodeURIComponent)}|${escapeSlack(label).replace(/\|/g, "¦")}>`);
    return `\u0000${links.length - 1}\u0000`;
  });
  s = escapeSlack(s)
    // Removed <run> tags leave double spaces behind; indentation (leading spaces) is kept.
    .replace(/(\S)[ \t]{2,}(?=\S)/g, "$1 ")
    .replace(/\*\*\*(.+?)\*\*\*/g, "\u0001_$1_\u0001")
    .replace(/\*\*(.+?)\*\*/g, "\u0001$1\u0001")
    .replace(/__(.+?)__/g, "\u0001$1\u0001")
    .replace(/(^|[^*\w])\*(?!\s)([^*]+?)\*(?!\w)/g, "$1_$2_")
    .replace(/~~(.+?)~~/g, "~$1~")
    .replace(/\u0001/g, "*");
  return s.replace(/\u0000(\d+)\u0000/g, (_, i: string) => links[Number(i)]);
}

/**
 * Slack message text as plain text: entities unescaped, `<@U123>` as `@U123`,
 * `<#C1|general>` as `#general`, `<https://x|label>` as `label (https://x)`.
 */
export function slackToPlain(text: string): string {
  return text
    .replace(/<([^<>]+)>/g, (_, inner: string) => {
      const [target, label] = inner.split("|", 2);
      if (target.startsWith("@")) return label ? `@${label}` : target;
      if (target.startsWith("#")) return label ? `#${label}` : target;
      if (target.startsWith("!")) return label ?? `@${target.slice(1).split("^")[0]}`;
      if (label && label !== target) return `${label} (${target})`;
      return target.replace(/^mailto:/, "");
    })
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** Removes the bot's own mention (Slack writes it `<@U123>` or `<@U123|name>`) and trims. */
export function stripBotMention(text: string, botUserId: string | undefined): string {
  const own = botUserId ? new RegExp(`<@${botUserId}(\\|[^>]*)?>`, "g") : /^\s*<@[A-Z0-9]+(\|[^>]*)?>/;
  return text.replace(own, " ").replace(/[ \t]+/g, " ").trim();
}
