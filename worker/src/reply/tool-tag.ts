/**
 * A tool call as the model writes it, `<tool name="server.tool">{"id": 7}</tool>`,
 * and as Duet carries it among a turn's commands: one line,
 * `tool: server.tool {"id":7}`. Carried that way it goes through everything a
 * command does (the cap per answer, the run policy, approvals, the audit, the
 * progress a restart resumes from, the reply), and the one place that runs a
 * command hands it to the tool instead of the sandbox.
 */

/** What starts a tool call among commands: no shell command begins so (`tool:` is no program). */
export const TOOL_CALL_PREFIX = "tool: ";
/** `server.tool`: a server name (tool-names.ts) and the tool's own name, as MCP allows it. */
const QUALIFIED = /^([a-z0-9][a-z0-9_-]{0,31})\.([A-Za-z0-9_.\-/]{1,128})$/;
/** The attributes of an opening tag: `name="…"`, `name='…'` or `name=…`. */
const NAME_ATTR = /^\s*name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))\s*$/i;

export interface ToolCall {
  server: string;
  tool: string;
  /** The arguments as JSON text, as the model wrote them ("{}" when it wrote none). */
  args: string;
}

/**
 * The call in a `<tool …>` tag body (what follows `<tool`: the attributes, `>`,
 * the arguments). Lenient the way commands are read: a name in any quotes, or
 * none in the tag and the name as the body's first word; arguments fenced as
 * code. Null when no name can be found.
 */
export function toolCallOfTag(body: string): ToolCall | null {
  const close = body.indexOf(">");
  let name = "";
  let rest = body;
  if (close >= 0) {
    const attrs = NAME_ATTR.exec(body.slice(0, close));
    if (attrs) name = attrs[1] ?? attrs[2] ?? attrs[3] ?? "";
    rest = body.slice(close + 1);
  }
  rest = rest.trim().replace(/^```[\w-]*\s*\n?([\s\S]*?)\n?```$/, "$1").trim();
  if (!name) {
    const first = /^(\S+)\s*([\s\S]*)$/.exec(rest);
    if (!first) return null;
    name = first[1];
    rest = first[2].trim();
  }
  const q = QUALIFIED.exec(name.trim());
  if (!q) return null;
  return { server: q[1], tool: q[2], args: oneLine(rest || "{}") };
}

/** JSON on one line where it parses (so the call is one line); as written otherwise, for the runner to refuse. */
function oneLine(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args));
  } catch {
    return args.replace(/\s*\n\s*/g, " ");
  }
}

export function toolCommand(call: ToolCall): string {
  return `${TOOL_CALL_PREFIX}${call.server}.${call.tool} ${call.args}`;
}

/** The call a command carries, or null for a shell command. */
export function toolCallOf(cmd: string): ToolCall | null {
  if (!cmd.startsWith(TOOL_CALL_PREFIX)) return null;
  const m = /^(\S+)\s*([\s\S]*)$/.exec(cmd.slice(TOOL_CALL_PREFIX.length));
  const q = m && QUALIFIED.exec(m[1]);
  return q ? { server: q[1], tool: q[2], args: m[2].trim() || "{}" } : null;
}
