import { open, seal } from "../installations/seal.ts";
import { exchangeCode, OAuthProblem, type OAuthGrant, type OAuthTokens, randomToken, refreshTokens, sha256Base64url, startAuthorization } from "./mcp-oauth.ts";

/** A started authorization is good for this long; its state then opens nothing. */
export const AUTHORIZATION_TTL_MS = 10 * 60_000;
/** An access token this close to running out is refreshed before it is sent. */
const REFRESH_MARGIN_MS = 60_000;

interface GrantRow extends Record<string, SqlStorageValue> {
  name: string;
  sealed: ArrayBuffer;
}

interface PendingRow extends Record<string, SqlStorageValue> {
  state_hash: string;
  name: string;
  sealed: ArrayBuffer;
  expires_at: number;
}

/** What a pending row seals: the grant so far, the PKCE verifier, and the link (shown again to the adder until it is used). */
interface Pending {
  grant: OAuthGrant;
  verifier: string;
  url: string;
}

/** The outcome of a browser's return to the callback. */
export type CallbackOutcome = { server: string } | { problem: string };

/**
 * One workspace's OAuth grants for its tool servers, in the workspace's store
 * (ToolServers): a row per authorized server with its client and tokens
 * sealed like the servers' headers, and a row per started authorization,
 * found by the SHA-256 of its state (never the state itself), holding the
 * PKCE verifier sealed, used once and good for AUTHORIZATION_TTL_MS.
 *
 * A state is `WORKSPACE.RANDOM`: the callback, which a browser reaches with
 * nothing else, finds the workspace's store by it; the random part is what
 * proves the browser came from Duet's link.
 */
export class ToolOAuth {
  private readonly refreshing = new Map<string, Promise<OAuthTokens | null>>();

  constructor(
    private readonly sql: SqlStorage,
    private readonly secret: () => string,
    private readonly allowPrivate: () => boolean,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS tool_oauth (name TEXT PRIMARY KEY, sealed BLOB NOT NULL)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS tool_oauth_pending (state_hash TEXT PRIMARY KEY, name TEXT NOT NULL, sealed BLOB NOT NULL, expires_at INTEGER NOT NULL)`);
  }

  /** Forgets a server's grant and its started authorizations (it was replaced or removed). */
  forget(name: string): void {
    this.sql.exec(`DELETE FROM tool_oauth WHERE name = ?`, name);
    this.sql.exec(`DELETE FROM tool_oauth_pending WHERE name = ?`, name);
    this.refreshing.delete(name);
  }

  wipe(): void {
    this.sql.exec(`DELETE FROM tool_oauth`);
    this.sql.exec(`DELETE FROM tool_oauth_pending`);
    this.refreshing.clear();
  }

  /** Whether the server has tokens (its 401 then means they stopped working). */
  authorized(name: string): boolean {
    return this.sql.exec(`SELECT 1 FROM tool_oauth WHERE name = ?`, name).toArray().length > 0;
  }

  /** The access token a call to the server carries, refreshed first when it is about to run out; null without a grant. */
  async access(workspace: string, name: string): Promise<string | null> {
    const grant = await this.grant(workspace, name);
    if (!grant?.tokens) return null;
    let tokens: OAuthTokens | null = grant.tokens;
    if (tokens.expiresAt !== undefined && tokens.expiresAt - REFRESH_MARGIN_MS < Date.now()) tokens = await this.refresh(workspace, name);
    return tokens?.access ?? null;
  }

  /**
   * New tokens for a server whose access token ran out or was refused; null
   * when there is no refresh token or the server refused it (the grant is then
   * forgotten: the server needs authorizing again). One refresh at a time per
   * server, so a rotated refresh token is not spent twice.
   */
  refresh(workspace: string, name: string): Promise<OAuthTokens | null> {
    let running = this.refreshing.get(name);
    if (!running) {
      running = this.refreshOnce(workspace, name).finally(() => this.refreshing.delete(name));
      this.refreshing.set(name, running);
    }
    return running;
  }

  private async refreshOnce(workspace: string, name: string): Promise<OAuthTokens | null> {
    const grant = await this.grant(workspace, name);
    if (!grant?.tokens?.refresh) {
      this.sql.exec(`DELETE FROM tool_oauth WHERE name = ?`, name);
      return null;
    }
    try {
      const tokens = await refreshTokens(grant);
      await this.keep(workspace, name, { ...grant, tokens });
      return tokens;
    } catch {
      this.sql.exec(`DELETE FROM tool_oauth WHERE name = ?`, name);
      return null;
    }
  }

  /**
   * The link that authorizes Duet at the server (which answered 401 with
   * `challenge`): one started earlier and still good, else a new one.
   */
  async link(workspace: string, name: string, serverUrl: string, challenge: string, redirectUri: string): Promise<string> {
    const now = Date.now();
    this.sql.exec(`DELETE FROM tool_oauth_pending WHERE expires_at <= ?`, now);
    for (const row of this.sql.exec<PendingRow>(`SELECT * FROM tool_oauth_pending WHERE name = ? ORDER BY expires_at DESC`, name).toArray()) {
      const pending = await this.openPending(workspace, row);
      // Made for another callback address (DUET_PUBLIC_URL changed): not offered again.
      if (pending?.grant.redirectUri === redirectUri) return pending.url;
    }
    const state = `${workspace}.${randomToken(32)}`;
    const started = await startAuthorization(serverUrl, challenge, redirectUri, state, this.allowPrivate());
    const hash = await sha256Base64url(state);
    const sealed = await seal(this.secret(), pendingAad(workspace, hash), JSON.stringify({ grant: started.grant, verifier: started.verifier, url: started.url } satisfies Pending));
    this.sql.exec(`INSERT INTO tool_oauth_pending (state_hash, name, sealed, expires_at) VALUES (?, ?, ?, ?)`, hash, name, sealed, now + AUTHORIZATION_TTL_MS);
    return started.url;
  }

  /**
   * The browser came back with `state` and `code`: the state is spent at
   * once (a second use finds nothing), then the code is traded for tokens,
   * which are kept sealed. `serverExists` says whether the server is still
   * the workspace's.
   */
  async complete(workspace: string, state: string, code: string | null, serverExists: (name: string) => boolean): Promise<CallbackOutcome> {
    const hash = await sha256Base64url(state);
    const row = this.sql.exec<PendingRow>(`SELECT * FROM tool_oauth_pending WHERE state_hash = ?`, hash).toArray()[0];
    if (!row) return { problem: "This authorization link was already used, has expired, or is not one Duet made." };
    this.sql.exec(`DELETE FROM tool_oauth_pending WHERE state_hash = ?`, hash);
    if (row.expires_at <= Date.now()) return { problem: "This authorization link has expired." };
    const pending = await this.openPending(workspace, row);
    if (!pending || !serverExists(row.name)) return { problem: "The tool server this link was for is no longer in the workspace." };
    if (code === null) return { problem: `The authorization for ${row.name} was not given, so Duet cannot use it.` };
    try {
      const tokens = await exchangeCode(pending.grant, code, pending.verifier);
      await this.keep(workspace, row.name, { ...pending.grant, tokens });
      // The other links for this server are moot now.
      this.sql.exec(`DELETE FROM tool_oauth_pending WHERE name = ?`, row.name);
      return { server: row.name };
    } catch (err) {
      return { problem: `The tool server ${row.name} could not be authorized: ${err instanceof OAuthProblem ? err.message : "its token endpoint failed"}.` };
    }
  }

  private async keep(workspace: string, name: string, grant: OAuthGrant): Promise<void> {
    const sealed = await seal(this.secret(), grantAad(workspace, name), JSON.stringify(grant));
    this.sql.exec(`INSERT INTO tool_oauth (name, sealed) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET sealed = excluded.sealed`, name, sealed);
  }

  private async grant(workspace: string, name: string): Promise<OAuthGrant | null> {
    const row = this.sql.exec<GrantRow>(`SELECT * FROM tool_oauth WHERE name = ?`, name).toArray()[0];
    if (!row) return null;
    return JSON.parse(await open(this.secret(), grantAad(workspace, name), new Uint8Array(row.sealed))) as OAuthGrant;
  }

  private async openPending(workspace: string, row: PendingRow): Promise<Pending | null> {
    try {
      return JSON.parse(await open(this.secret(), pendingAad(workspace, row.state_hash), new Uint8Array(row.sealed))) as Pending;
    } catch {
      return null;
    }
  }
}

const grantAad = (workspace: string, name: string) => `tools-oauth:${workspace}:${name}`;
const pendingAad = (workspace: string, hash: string) => `tools-oauth-pending:${workspace}:${hash}`;

/** The workspace a state names (the part before its last dot), or null for a state Duet never makes. */
export function workspaceOfState(state: string): string | null {
  const dot = state.lastIndexOf(".");
  if (dot <= 0 || !/^[A-Za-z0-9_-]{43}$/.test(state.slice(dot + 1))) return null;
  return state.slice(0, dot);
}
