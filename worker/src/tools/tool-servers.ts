import { DurableObject } from "cloudflare:workers";
import { open, seal } from "../installations/seal.ts";
import { callTool, listTools, resultText, type McpTool } from "./mcp-client.ts";
import { McpError } from "./mcp-rpc.ts";

/** What the store's Durable Object needs from the Worker's environment. */
export interface ToolServersEnv {
  DUET_STORE_KEY?: string;
}

/** A server as listed: never its headers' values, only their names. */
export interface ServerView {
  name: string;
  url: string;
  headers: string[];
  addedBy: string | null;
  addedAt: number;
}

/** A server's tools, or the line that says why they could not be listed. */
export interface ServerTools {
  server: string;
  tools: McpTool[];
  error?: string;
}

/** A tool call's outcome: the result's text (headers' values taken out), or the line that says why there is none. */
export type CallOutcome = { text: string; isError: boolean } | { error: string };

interface Row extends Record<string, SqlStorageValue> {
  name: string;
  url: string;
  header_names: string;
  sealed: ArrayBuffer | null;
  added_by: string | null;
  added_at: number;
}

/** A listing is reused this long, so each turn of a busy workspace does not list every server again. */
const LIST_REUSE_MS = 60_000;
/** How long listing one server may take before the turn goes on without its tools. */
export const TOOLS_LIST_TIMEOUT_MS = 10_000;
/** Header values shorter than this are not taken out of results (a short value would blank ordinary words). */
const SECRET_MIN_CHARS = 8;

/**
 * One workspace's MCP servers (the store's name is the workspace, e.g.
 * `slack-T123`): a row per server with its address and its headers sealed
 * with AES-GCM as installation tokens are (the workspace and server name as
 * additional data). Tool calls are made from here, so a server's headers are
 * opened only inside its own workspace's store and never cross to a room.
 */
export class ToolServers extends DurableObject<ToolServersEnv> {
  private readonly listed = new Map<string, { at: number; tools: McpTool[] }>();

  constructor(ctx: DurableObjectState, env: ToolServersEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS tool_server (
        name TEXT PRIMARY KEY, url TEXT NOT NULL, header_names TEXT NOT NULL, sealed BLOB, added_by TEXT, added_at INTEGER NOT NULL)`,
    );
  }

  private row(name: string): Row | undefined {
    return this.ctx.storage.sql.exec<Row>("SELECT * FROM tool_server WHERE name = ?", name).toArray()[0];
  }

  private secret(): string {
    // The routes refuse headers without the key; this guards a direct call.
    if (!this.env.DUET_STORE_KEY) throw new Error("DUET_STORE_KEY is not set");
    return this.env.DUET_STORE_KEY;
  }

  /** Adds the server or replaces one of the same name; true when it is new. */
  async put(workspace: string, name: string, url: string, headers: Record<string, string>, by: string | null): Promise<{ server: ServerView; created: boolean }> {
    const names = Object.keys(headers);
    // Sealed before reading the row: no await between the check and the write.
    const sealed = names.length ? await seal(this.secret(), aad(workspace, name), JSON.stringify(headers)) : null;
    const created = !this.row(name);
    const at = Date.now();
    this.ctx.storage.sql.exec(
      `INSERT INTO tool_server (name, url, header_names, sealed, added_by, added_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET url = excluded.url, header_names = excluded.header_names, sealed = excluded.sealed, added_by = excluded.added_by, added_at = excluded.added_at`,
      name, url, JSON.stringify(names), sealed, by, at,
    );
    this.listed.delete(name);
    return { server: { name, url, headers: names, addedBy: by, addedAt: at }, created };
  }

  async list(): Promise<ServerView[]> {
    return this.ctx.storage.sql.exec<Row>("SELECT * FROM tool_server ORDER BY name").toArray().map(viewOf);
  }

  async has(name: string): Promise<boolean> {
    return this.row(name) !== undefined;
  }

  async remove(name: string): Promise<boolean> {
    this.listed.delete(name);
    return this.ctx.storage.sql.exec("DELETE FROM tool_server WHERE name = ?", name).rowsWritten > 0;
  }

  /** Forgets every server of the workspace, headers and all (Duet was removed from it); how many there were. */
  async wipe(): Promise<number> {
    this.listed.clear();
    return this.ctx.storage.sql.exec("DELETE FROM tool_server").rowsWritten;
  }

  /** The tools of each named server (those that are gone say so), listed at once, each within TOOLS_LIST_TIMEOUT_MS. */
  async tools(workspace: string, names: string[]): Promise<ServerTools[]> {
    return Promise.all(
      names.map(async (server): Promise<ServerTools> => {
        const cached = this.listed.get(server);
        if (cached && Date.now() - cached.at < LIST_REUSE_MS) return { server, tools: cached.tools };
        const row = this.row(server);
        if (!row) return { server, tools: [], error: `no server named ${server} in this workspace` };
        try {
          const tools = await listTools(await this.endpoint(workspace, row), AbortSignal.timeout(TOOLS_LIST_TIMEOUT_MS));
          this.listed.set(server, { at: Date.now(), tools });
          return { server, tools };
        } catch (err) {
          return { server, tools: [], error: faultLine(err, TOOLS_LIST_TIMEOUT_MS) };
        }
      }),
    );
  }

  /** Calls one tool; the result's text has the server's header values taken out. */
  async call(workspace: string, server: string, tool: string, args: Record<string, unknown>, timeoutMs: number): Promise<CallOutcome> {
    const row = this.row(server);
    if (!row) return { error: `no server named ${server} in this workspace` };
    const ep = await this.endpoint(workspace, row);
    try {
      const result = await callTool(ep, tool, args, AbortSignal.timeout(timeoutMs));
      let text = resultText(result);
      for (const value of Object.values(ep.headers)) if (value.length >= SECRET_MIN_CHARS) text = text.split(value).join("[redacted]");
      return { text, isError: result.isError === true };
    } catch (err) {
      return { error: faultLine(err, timeoutMs) };
    }
  }

  private async endpoint(workspace: string, row: Row) {
    const headers = row.sealed ? (JSON.parse(await open(this.secret(), aad(workspace, row.name), new Uint8Array(row.sealed))) as Record<string, string>) : {};
    return { url: row.url, headers };
  }
}

const aad = (workspace: string, name: string) => `tools:${workspace}:${name}`;

function viewOf(r: Row): ServerView {
  return { name: r.name, url: r.url, headers: JSON.parse(r.header_names) as string[], addedBy: r.added_by, addedAt: r.added_at };
}

/** A fault as the line a person reads. */
function faultLine(err: unknown, timeoutMs: number): string {
  if (err instanceof McpError) return err.message;
  if ((err as Error)?.name === "TimeoutError") return `it did not answer within ${Math.round(timeoutMs / 1000)} s`;
  return `it failed (${(err as Error)?.message ?? String(err)})`;
}
