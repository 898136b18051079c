import { randomBytes, randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { EventEnvelope } from "./deliver.ts";

/**
 * Slack's side of OAuth distribution, as the fake plays it: the authorize page
 * (a person picks a workspace, or a Grid org for an org-wide install, and
 * approves), `oauth.v2.access` for both the code exchange and token rotation's
 * `grant_type=refresh_token`, and the bot tokens that come out of it. A
 * refresh revokes the access token and refresh token it replaces, as Slack
 * does, so a replica that keeps using an old one is refused.
 */

export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  /** Where the authorize page sends the browser back (the bot's /slack/oauth_redirect). */
  redirectUri: string;
  /** Tokens expire (token rotation on) after this many seconds; undefined: they never do. */
  expiresIn?: number;
}

/** Who approves an install on the authorize page. */
export interface Installer {
  teamId?: string;
  /** With orgWide: the Grid org installs Duet for all its workspaces. */
  enterpriseId?: string;
  orgWide?: boolean;
  user?: string;
}

/** One installation's bot, as Slack knows it. */
export interface Grant {
  teamId?: string;
  enterpriseId?: string;
  orgWide: boolean;
  botUserId: string;
  botId: string;
  token: string;
  refreshToken?: string;
  /** Access tokens this grant has had; only `token` is still valid. */
  revoked: Set<string>;
}

type Result = Record<string, unknown>;

export class FakeOAuth {
  app: OAuthApp | null = null;
  /** Every grant, by its current bot token. */
  private readonly byToken = new Map<string, Grant>();
  private readonly byRefresh = new Map<string, Grant>();
  private readonly codes = new Map<string, { grant: Grant; installer: Installer }>();
  /** The refresh_token grants Slack answered (ok or not), for "the fake saw one refresh". */
  readonly refreshes: { refreshToken: string; ok: boolean }[] = [];
  private seq = 0;

  /** The grant whose current bot token this is (revoked and unknown tokens: undefined). */
  grantOf(token: string | undefined): Grant | undefined {
    return token ? this.byToken.get(token) : undefined;
  }

  /** A token a refresh replaced (Slack answers `token_expired` for it). */
  isRevoked(token: string | undefined): boolean {
    return Boolean(token) && [...this.byToken.values()].some((g) => g.revoked.has(token as string));
  }

  /** The live grant of a workspace (or, with an enterprise id, of an org-wide install). */
  grantFor(key: string): Grant | undefined {
    return [...this.byToken.values()].find((g) => (g.orgWide ? g.enterpriseId : g.teamId) === key);
  }

  /** GET /oauth/v2/authorize?client_id&scope&state[&team|&enterprise&org_wide]: the person approves at once. */
  authorize(url: URL, res: ServerResponse): void {
    const app = this.app;
    if (!app || url.searchParams.get("client_id") !== app.clientId) return page(res, 400, "invalid_client_id");
    const installer: Installer = {
      teamId: url.searchParams.get("team") ?? undefined,
      enterpriseId: url.searchParams.get("enterprise") ?? undefined,
      orgWide: url.searchParams.get("org_wide") === "true",
      user: url.searchParams.get("user") ?? "U0INSTALLER",
    };
    if (installer.orgWide ? !installer.enterpriseId : !installer.teamId) return page(res, 400, "pick a workspace (team) or an org (enterprise, org_wide)");
    const code = `code-${randomUUID()}`;
    this.codes.set(code, { grant: this.newGrant(installer), installer });
    const back = new URL(url.searchParams.get("redirect_uri") ?? app.redirectUri);
    back.searchParams.set("code", code);
    const state = url.searchParams.get("state");
    if (state !== null) back.searchParams.set("state", state);
    res.writeHead(302, { location: back.toString() });
    res.end();
  }

  /** `oauth.v2.access`: a code once, or a refresh token (token rotation) once. */
  access(args: Record<string, unknown>, basicAuth: string | undefined): Result {
    const app = this.app;
    const [id, secret] = basicAuth ? Buffer.from(basicAuth, "base64").toString("utf8").split(":") : [args.client_id, args.client_secret];
    if (!app || id !== app.clientId || secret !== app.clientSecret) return { ok: false, error: "invalid_client_id" };
    if (args.grant_type === "refresh_token") return this.refresh(String(args.refresh_token ?? ""));
    const pending = this.codes.get(String(args.code ?? ""));
    if (!pending) return { ok: false, error: "invalid_code" };
    this.codes.delete(String(args.code));
    const g = pending.grant;
    this.byToken.set(g.token, g);
    if (g.refreshToken) this.byRefresh.set(g.refreshToken, g);
    return {
      ok: true,
      app_id: "A0DUETAPP",
      authed_user: { id: pending.installer.user },
      scope: "app_mentions:read,chat:write,commands,channels:history,reactions:write",
      token_type: "bot",
      access_token: g.token,
      bot_user_id: g.botUserId,
      team: g.orgWide ? null : { id: g.teamId, name: `team ${g.teamId}` },
      enterprise: g.enterpriseId ? { id: g.enterpriseId, name: `org ${g.enterpriseId}` } : null,
      is_enterprise_install: g.orgWide,
      ...(g.refreshToken ? { refresh_token: g.refreshToken, expires_in: app.expiresIn } : {}),
    };
  }

  /** auth.test for a granted token. */
  authTest(g: Grant): Result {
    return {
      ok: true,
      url: `https://${(g.teamId ?? g.enterpriseId ?? "org").toLowerCase()}.slack.com/`,
      team: g.teamId ?? "",
      user: "duet",
      team_id: g.teamId ?? "",
      user_id: g.botUserId,
      bot_id: g.botId,
      is_enterprise_install: g.orgWide,
      ...(g.enterpriseId ? { enterprise_id: g.enterpriseId } : {}),
    };
  }

  /**
   * Rewrites an event envelope built for the fake's default workspace into one
   * from an installed workspace (a team of an org-wide install when `teamId`
   * is given): its team, enterprise, authorizations and the bot it mentions.
   */
  deliveredTo(env: EventEnvelope, g: Grant, teamId = g.teamId ?? ""): EventEnvelope {
    const event = { ...env.event, team: teamId } as Record<string, unknown>;
    if (typeof event.text === "string") event.text = event.text.replace(/^<@[A-Z0-9]+>/, `<@${g.botUserId}>`);
    return {
      ...env,
      team_id: teamId,
      ...(g.enterpriseId ? { enterprise_id: g.enterpriseId } : {}),
      event,
      authorizations: [{ enterprise_id: g.enterpriseId ?? null, team_id: teamId, user_id: g.botUserId, is_bot: true, is_enterprise_install: g.orgWide }],
    };
  }

  private refresh(refreshToken: string): Result {
    const g = this.byRefresh.get(refreshToken);
    this.refreshes.push({ refreshToken, ok: Boolean(g) });
    if (!g) return { ok: false, error: "invalid_refresh_token" };
    this.byRefresh.delete(refreshToken);
    this.byToken.delete(g.token);
    g.revoked.add(g.token);
    this.seq += 1;
    g.token = `xoxe.xoxb-${g.teamId ?? g.enterpriseId}-${this.seq}-${randomBytes(6).toString("hex")}`;
    g.refreshToken = `xoxe-1-${g.teamId ?? g.enterpriseId}-${this.seq}-${randomBytes(6).toString("hex")}`;
    this.byToken.set(g.token, g);
    this.byRefresh.set(g.refreshToken, g);
    // Rotated tokens live 12 hours, as Slack's do.
    return { ok: true, token_type: "bot", access_token: g.token, refresh_token: g.refreshToken, expires_in: 43_200, team: g.teamId ? { id: g.teamId } : null, enterprise: g.enterpriseId ? { id: g.enterpriseId } : null, is_enterprise_install: g.orgWide };
  }

  private newGrant(who: Installer): Grant {
    this.seq += 1;
    const owner = (who.orgWide ? who.enterpriseId : who.teamId) ?? "X";
    const rotating = this.app?.expiresIn !== undefined;
    const secret = randomBytes(6).toString("hex");
    return {
      teamId: who.orgWide ? undefined : who.teamId,
      enterpriseId: who.enterpriseId,
      orgWide: Boolean(who.orgWide),
      botUserId: `U${owner}BOT`,
      botId: `B${owner}BOT`,
      token: `${rotating ? "xoxe.xoxb" : "xoxb"}-${owner}-${this.seq}-${secret}`,
      refreshToken: rotating ? `xoxe-1-${owner}-${this.seq}-${secret}` : undefined,
      revoked: new Set(),
    };
  }
}

function page(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "text/plain" });
  res.end(text);
}
