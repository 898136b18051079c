import { DurableObject } from "cloudflare:workers";
import { open, seal, STORE_KEY_MIN_CHARS } from "../installations/seal.ts";
import { callTool, listTools, resultText, type McpTool } from "./mcp-client.ts";
import { OAuthProblem } from "./mcp-oauth.ts";
import { McpAuthRequired, McpError, type McpEndpoint } from "./mcp-rpc.ts";
import { type CallbackOutcome, ToolOAuth } from "./tool-oauth.ts";

/** What the store's Durable Object needs from the Worker's environment. */
export interface ToolServersEnv {
  DUET_STORE_KEY?: string;
  DUET_TOOLS_ALLOW_PRIVATE?: string;
}

/** A server as listed: never its headers' values, only their names. */
export interface ServerView {
  name: string;
  url: string;
  headers: string[];
  addedBy: string | null;
  addedAt: number;
}

/** A server's tools, or the line that says why they could not be listed (and, for the person who added a server that needs OAuth, the link that authorizes it). */
export interface ServerTools {
  server: string;
  tools: McpTool[];
  error?: string;
  /** The server asks for OAuth and Duet has no working token for it. */
  needsAuthorization?: true;
  authorizeUrl?: string;
}

/** Who is looking at a listing, and where their browser comes back after authorizing: the person who added a server that needs OAuth is given its link. */
export interface Viewer {
  userId: string | null;
  redirectUri: string;
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
  private readonly oauth: ToolOAuth;

  constructor(ctx: DurableObjectState, env: ToolServersEnv) {
    super(ctx, env);
    this.oauth = new ToolOAuth(ctx.storage.sql, () => this.secret(), () => env.DUET_TOOLS_ALLOW_PRIVATE === "1");
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
    // A replaced server is authorized afresh: its tokens were for the old address.
    this.oauth.forget(name);
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
    this.oauth.forget(name);
    return this.ctx.storage.sql.exec("DELETE FROM tool_server WHERE name = ?", name).rowsWritten > 0;
  }

  /** Forgets every server of the workspace, headers and all (Duet was removed from it); how many there were. */
  async wipe(): Promise<number> {
    this.listed.clear();
    this.oauth.wipe();
    return this.ctx.storage.sql.exec("DELETE FROM tool_server").rowsWritten;
  }

  /**
   * The tools of each named server (those that are gone say so), listed at
   * once, each within TOOLS_LIST_TIMEOUT_MS. A server that asks for OAuth
   * says so; `viewer`, when they added it, is given the link that authorizes it.
   */
  async tools(workspace: string, names: string[], viewer?: Viewer): Promise<ServerTools[]> {
    return Promise.all(
      names.map(async (server): Promise<ServerTools> => {
        const cached = this.listed.get(server);
        if (cached && Date.now() - cached.at < LIST_REUSE_MS) return { server, tools: cached.tools };
        const row = this.row(server);
        if (!row) return { server, tools: [], error: `no server named ${server} in this workspace` };
        try {
          const tools = await this.authorized(workspace, row, (ep) => listTools(ep, AbortSignal.timeout(TOOLS_LIST_TIMEOUT_MS)));
          this.listed.set(server, { at: Date.now(), tools });
          return { server, tools };
        } catch (err) {
          if (!(err instanceof McpAuthRequired)) return { server, tools: [], error: faultLine(err, TOOLS_LIST_TIMEOUT_MS) };
          if (!viewer || viewer.userId !== row.added_by) return { server, tools: [], error: NEEDS_AUTHORIZATION, needsAuthorization: true };
          return { server, tools: [], needsAuthorization: true, ...(await this.authorizeLink(workspace, row, err.challenge, viewer.redirectUri)) };
        }
      }),
    );
  }

  /** Calls one tool; the result's text has the server's header values and access token taken out. */
  async call(workspace: string, server: string, tool: string, args: Record<string, unknown>, timeoutMs: number): Promise<CallOutcome> {
    const row = this.row(server);
    if (!row) return { error: `no server named ${server} in this workspace` };
    let sent: McpEndpoint | undefined;
    const hadToken = this.oauth.authorized(server);
    try {
      const result = await this.authorized(workspace, row, (ep) => ((sent = ep), callTool(ep, tool, args, AbortSignal.timeout(timeoutMs))));
      let text = resultText(result);
      for (const value of Object.values(sent?.headers ?? {})) if (value.length >= SECRET_MIN_CHARS) text = text.split(value).join("[redacted]");
      return { text, isError: result.isError === true };
    } catch (err) {
      // The server refused before doing anything: nothing was called, and nothing is retried until someone authorizes it.
      if (err instanceof McpAuthRequired) {
        // Its tools are no longer callable: the next listing says so (and has the adder's new link).
        this.listed.delete(server);
        return { error: hadToken ? CALL_NEEDS_AUTHORIZATION_AGAIN : CALL_NEEDS_AUTHORIZATION };
      }
      return { error: faultLine(err, timeoutMs) };
    }
  }

  /**
   * The browser came back to the callback: its state is spent, the code traded
   * for tokens kept sealed here, and the server's tools are listed afresh.
   */
  async completeAuthorization(workspace: string, state: string, code: string | null): Promise<CallbackOutcome> {
    const outcome = await this.oauth.complete(workspace, state, code, (name) => this.row(name) !== undefined);
    if ("server" in outcome) this.listed.delete(outcome.server);
    return outcome;
  }

  /**
   * Runs `use` with the server's endpoint (its headers, and its access token
   * when it has one). A 401 with a token in hand is tried once more after a
   * refresh (a token revoked before its time); a second 401, or none to
   * refresh, forgets the grant and is thrown.
   */
  private async authorized<T>(workspace: string, row: Row, use: (ep: McpEndpoint) => Promise<T>): Promise<T> {
    const headers = await this.headersOf(workspace, row);
    // An access token takes the place of an Authorization header the server was added with.
    const bearer = (access: string) => ({ ...Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== "authorization")), authorization: `Bearer ${access}` });
    const token = await this.oauth.access(workspace, row.name);
    try {
      return await use({ url: row.url, headers: token ? bearer(token) : headers });
    } catch (err) {
      if (!(err instanceof McpAuthRequired) || !token) throw err;
      const fresh = await this.oauth.refresh(workspace, row.name);
      if (!fresh) throw err;
      try {
        return await use({ url: row.url, headers: bearer(fresh.access) });
      } catch (again) {
        if (again instanceof McpAuthRequired) this.oauth.forget(row.name);
        throw again;
      }
    }
  }

  /** The link for the person who added the server, or why there can be none. */
  private async authorizeLink(workspace: string, row: Row, challenge: string, redirectUri: string): Promise<{ error: string; authorizeUrl?: string }> {
    const key = this.env.DUET_STORE_KEY?.trim() ?? "";
    if (key.length < STORE_KEY_MIN_CHARS) return { error: `it asks for OAuth, and the Worker has no DUET_STORE_KEY to keep its tokens sealed with` };
    try {
      return { error: NEEDS_AUTHORIZATION, authorizeUrl: await this.oauth.link(workspace, row.name, row.url, challenge, redirectUri) };
    } catch (err) {
      if (err instanceof OAuthProblem) return { error: `it asks for OAuth, and Duet cannot authorize with it: ${err.message}` };
      throw err;
    }
  }

  /** The headers the adder gave for `row`, unsealed (none when it gave none). */
  private async headersOf(workspace: string, row: Row): Promise<Record<string, string>> {
    return row.sealed ? (JSON.parse(await open(this.secret(), aad(workspace, row.name), new Uint8Array(row.sealed))) as Record<string, string>) : {};
  }
}

/** A server that asks for OAuth and has no working token, as its listing and the prompt say it. */
export const NEEDS_AUTHORIZATION = "it needs to be authorized; the person who added it gets the link with `/duet tools`";
/** A call to such a server, which was refused before anything was done. */
const CALL_NEEDS_AUTHORIZATION = "it needs to be authorized, so the call was not made; the person who added it gets the link with `/duet tools`";
/** A call whose token stopped working (revoked, or its refresh refused). */
const CALL_NEEDS_AUTHORIZATION_AGAIN = "it needs to be authorized again, so the call was not made; the person who added it gets a new link with `/duet tools`";

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
