import { HEADERS_MAX, HEADER_VALUE_MAX_CHARS, SERVER_NAME_MAX_CHARS, SERVER_URL_MAX_CHARS, headerProblem, serverNameProblem, serverUrlProblem } from "../wire/tool-schemas.ts";
import { TOOLS_WORDS } from "../words/tools.ts";

/**
 * The words after `tools` in every front end (`/duet tools …` in Slack, the
 * `what:` option in Discord, `duet tools ROOM …` in the CLI), read once here
 * so each refuses the same input with the same line before anything reaches
 * the Worker. A problem never quotes what was typed: it may hold an API key,
 * a mention, or a line break meant to break out of the reply.
 */

/** What `/duet tools` was asked to change. */
export type ToolsChange =
  | { add: { name: string; url: string; headers: Record<string, string> } }
  | { remove: string }
  | { room: "on" | "off"; name: string };

/** Nothing: list the servers. `change`: add, remove, or turn one on or off here. `problem`: one line saying what was wrong; nothing is sent. */
export type ToolsArgs = { change?: ToolsChange } | { problem: string };

/** The longest text worth reading: `add`, a name, an address and every header at its limits. */
export const TOOLS_ARGS_MAX_CHARS = 4 + SERVER_NAME_MAX_CHARS + 1 + SERVER_URL_MAX_CHARS + HEADERS_MAX * (64 + 3 + HEADER_VALUE_MAX_CHARS + 1);

/** `NAME=value`, `NAME:value` or either with the value in double quotes (a value with spaces, `Bearer …`). */
const HEADER = /^([^\s=:"]+)\s*[=:]\s*(?:"([^"\r\n]*)"|([^\s"]+))(?=\s|$)/;

export function readToolsArgs(text: string): ToolsArgs {
  const clean = text.trim();
  if (!clean) return {};
  if (clean.length > TOOLS_ARGS_MAX_CHARS) return { problem: TOOLS_WORDS.tooLong(clean.length, TOOLS_ARGS_MAX_CHARS) };
  const [verb, ...rest] = clean.split(/\s+/);
  switch (verb.toLowerCase()) {
    case "list":
      return rest.length ? { problem: TOOLS_WORDS.usage } : {};
    case "add":
      return readAdd(clean.slice(verb.length).trim());
    case "remove": {
      if (rest.length !== 1) return { problem: TOOLS_WORDS.removeUsage };
      const why = serverNameProblem(rest[0]);
      return why ? { problem: TOOLS_WORDS.rule(why) } : { change: { remove: rest[0] } };
    }
    case "room": {
      const [state, name, ...more] = rest;
      const on = state?.toLowerCase();
      if ((on !== "on" && on !== "off") || !name || more.length) return { problem: TOOLS_WORDS.roomUsage };
      const why = serverNameProblem(name);
      return why ? { problem: TOOLS_WORDS.rule(why) } : { change: { room: on, name } };
    }
    default:
      return { problem: TOOLS_WORDS.usage };
  }
}

function readAdd(text: string): ToolsArgs {
  const [name, rawUrl] = text.split(/\s+/, 2);
  if (!name || !rawUrl) return { problem: TOOLS_WORDS.addUsage };
  const nameWhy = serverNameProblem(name);
  if (nameWhy) return { problem: TOOLS_WORDS.rule(nameWhy) };
  const url = unwrapLink(rawUrl);
  const urlWhy = serverUrlProblem(url);
  if (urlWhy) return { problem: TOOLS_WORDS.rule(urlWhy) };
  const headers: Record<string, string> = {};
  let rest = text.slice(text.indexOf(rawUrl, name.length) + rawUrl.length).trim();
  while (rest) {
    const m = HEADER.exec(rest);
    if (!m) return { problem: TOOLS_WORDS.headerForm };
    const [whole, headerName, quoted, bare] = m;
    const value = quoted ?? bare;
    const why = headerProblem(headerName, value);
    if (why) return { problem: TOOLS_WORDS.rule(why) };
    if (Object.keys(headers).some((k) => k.toLowerCase() === headerName.toLowerCase())) return { problem: TOOLS_WORDS.headerTwice };
    headers[headerName] = value;
    if (Object.keys(headers).length > HEADERS_MAX) return { problem: TOOLS_WORDS.tooManyHeaders };
    rest = rest.slice(whole.length).trim();
  }
  return { change: { add: { name, url, headers } } };
}

/** Slack sends a typed address as `<https://…>` or `<https://…|label>`, with `&` as `&amp;`. */
function unwrapLink(raw: string): string {
  const link = /^<([^|>]+)(?:\|[^>]*)?>$/.exec(raw);
  const url = link ? link[1] : raw;
  return url.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}
