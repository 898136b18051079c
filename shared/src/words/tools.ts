import { duetCommand, type Naming } from "../format/control.ts";
import { formatCount } from "../format/output.ts";
import { HEADERS_MAX, type ToolServerListing, type ToolServerView } from "../wire/tool-schemas.ts";

/** A workspace's tool servers (MCP) and the room's choice of them, in words every front end shares. */

const FORMS = "`tools`, `tools add NAME URL [Header=value…]`, `tools remove NAME`, `tools room on|off NAME`";

/** One line for each way `/duet tools …` can be typed wrong; none quotes what was typed (a header's value is a secret). */
export const TOOLS_WORDS = {
  usage: `Tools takes one of ${FORMS}.`,
  addUsage: "Give the server a name and its address, e.g. `tools add tracker https://mcp.example.com/mcp X-Api-Key=…`.",
  removeUsage: "Name one server to remove, e.g. `tools remove tracker`.",
  roomUsage: "Say on or off and name one server, e.g. `tools room on tracker`.",
  headerForm: 'Give each header as Name=value, with a value that holds spaces in double quotes, e.g. `Authorization="Bearer …"`.',
  headerTwice: "Give each header once.",
  tooManyHeaders: `That is more headers than a server may have (at most ${HEADERS_MAX}).`,
  tooLong: (length: number, max: number) => `That is ${formatCount(length)} characters; a tools command is at most ${formatCount(max)}.`,
  /** `why` is the rule broken (tool-schemas.ts), without a full stop. */
  rule: (why: string) => `${why}.`,
  /** What a person who may not change the tools sees after "Only … may". */
  refusedWhat: "add, remove, or turn tool servers on or off here.",
  /** Shown instead of a header's value, wherever a server is listed. */
  hidden: "(value hidden)",
} as const;

/**
 * A server just added that asks for OAuth: its link was shown to the person
 * who added it (`sent`), or could not be here (a reply to a Discord message is
 * seen by all: `/duet tools` as a slash command shows it), or Duet cannot
 * authorize with it (`problem`, the Worker's line).
 */
export type ToolsAuthorization = { sent: boolean } | { problem: string };

/** What just happened to the workspace's servers or the room's choice of them, for the reply that says so. */
export type ToolsEvent =
  | { did: "added"; by: string; server: ToolServerView; created: boolean; authorization?: ToolsAuthorization }
  /** The link that authorizes Duet at a server, for the person who added it only. */
  | { did: "authorize"; name: string; url: string }
  | { did: "removed"; by: string; name: string }
  | { did: "no-such-server"; name: string }
  | { did: "on"; by: string; name: string }
  | { did: "off"; by: string; name: string }
  | { did: "was-off"; name: string };

/** The servers of the workspace, with their tools, and which are on here. */
export interface ToolsListing {
  servers: ToolServerListing[];
  onHere: string[];
}

function headersText(headers: string[]): string {
  return headers.length ? `; headers ${headers.map((h) => `${h} ${TOOLS_WORDS.hidden}`).join(", ")}` : "";
}

function serverLine(s: ToolServerListing, on: boolean, name: Naming): string {
  if (s.needsAuthorization) {
    const link = s.authorizeUrl ? `; you added it, so only you see the link that authorizes Duet there: ${s.authorizeUrl}` : "";
    return `• ${name.command(s.name)} ${name.command(s.url)}${headersText(s.headers)}: ${on ? "on here" : "off here"}; ${s.error?.replace(/\.$/, "") ?? "it needs to be authorized"}${link}`;
  }
  const tools = s.error
    ? `its tools could not be listed (${s.error.replace(/\.$/, "")})`
    : s.tools.length
      ? `tools ${s.tools.map((t) => `${name.command(t.name)}${t.readOnly ? " (read-only)" : ""}`).join(", ")}`
      : "no tools";
  return `• ${name.command(s.name)} ${name.command(s.url)}${headersText(s.headers)}: ${on ? "on here" : "off here"}; ${tools}`;
}

/** `/duet tools`: each server of the workspace, whether it is on here, and its tools. */
export function describeTools(listing: ToolsListing, name: Naming): string {
  if (!listing.servers.length) return `No tool servers are added in this workspace; ${duetCommand(name, "tools add NAME URL")} adds one.`;
  const lines = listing.servers.map((s) => serverLine(s, listing.onHere.includes(s.name), name));
  return [`Tool servers in this workspace (${duetCommand(name, "tools room on NAME")} turns one on here):`, ...lines].join("\n");
}

/** What just changed, as a reply says it. */
export function describeToolsEvent(event: ToolsEvent, name: Naming): string {
  switch (event.did) {
    case "added": {
      const s = event.server;
      const verb = event.created ? "added" : "replaced";
      return `${name.person(event.by)} ${verb} the tool server ${name.command(s.name)} (${name.command(s.url)}${headersText(s.headers)}) in this workspace; ${duetCommand(name, `tools room on ${s.name}`)} turns it on in a room.${authorizationText(event, name)}`;
    }
    case "authorize":
      return `${name.command(event.name)} asks you to authorize Duet there before its tools can be used. Only you see this link; it works once, within 10 minutes: ${event.url}`;
    case "removed":
      return `${name.person(event.by)} removed the tool server ${name.command(event.name)} from this workspace; no room can call it now.`;
    case "no-such-server":
      return `No tool server named ${name.command(event.name)} in this workspace; ${duetCommand(name, `tools add ${event.name} URL`)} adds it. Nothing changed.`;
    case "on":
      return `${name.person(event.by)} turned the tool server ${name.command(event.name)} on in this room: Duet may call its tools here.`;
    case "off":
      return `${name.person(event.by)} turned the tool server ${name.command(event.name)} off in this room.`;
    case "was-off":
      return `The tool server ${name.command(event.name)} is not on in this room; nothing changed.`;
  }
}

function authorizationText(event: Extract<ToolsEvent, { did: "added" }>, name: Naming): string {
  const a = event.authorization;
  if (!a) return "";
  if ("problem" in a) return ` Its tools cannot be used: ${a.problem.replace(/\.$/, "")}.`;
  if (a.sent) return ` It asks for OAuth: ${name.person(event.by)} was sent the link that authorizes Duet there, which only they see.`;
  return ` It asks for OAuth: ${name.person(event.by)} gets the link that authorizes Duet there from ${duetCommand(name, "tools")} as a slash command, which only they see.`;
}

/** A tools reply as a front end shows it: what changed, or the listing. */
export function describeToolsReply(reply: { listing?: ToolsListing; event?: ToolsEvent }, name: Naming): string {
  if (reply.event) return describeToolsEvent(reply.event, name);
  return describeTools(reply.listing ?? { servers: [], onHere: [] }, name);
}
