import { Hono } from "hono";
import { loadConfig } from "../config.ts";
import type { Vars } from "../vars.ts";
import { workspaceOf } from "./tool-input.ts";
import { workspaceOfState } from "./tool-oauth.ts";
import type { ToolServers } from "./tool-servers.ts";

/**
 * `GET /oauth/mcp/callback`: where a tool server's authorization server sends
 * the person's browser back with `code` and `state`. Public (a browser reaches
 * it, with no Duet token), so it trusts nothing but the state: it names the
 * workspace, whose store spends it once and trades the code there. It answers
 * a plain page saying what happened, never a token, the code or the state.
 */

export const OAUTH_CALLBACK_PATH = "/oauth/mcp/callback";
/** Longer values are no state or code Duet or a server makes. */
const STATE_MAX_CHARS = 300;
const CODE_MAX_CHARS = 2048;

type CallbackBindings = Vars & { TOOL_SERVERS: DurableObjectNamespace<ToolServers> };

export const oauthCallbackRoutes = new Hono<{ Bindings: CallbackBindings }>();

/** Where the browser comes back: under DUET_PUBLIC_URL, else the address the Worker was reached at. */
export function callbackUri(env: Vars, requestUrl: string): string {
  const base = loadConfig(env).DUET_PUBLIC_URL ?? new URL(requestUrl).origin;
  return `${base.replace(/\/+$/, "")}${OAUTH_CALLBACK_PATH}`;
}

oauthCallbackRoutes.get("/", async (c) => {
  const state = c.req.query("state") ?? "";
  const code = c.req.query("code");
  const refused = c.req.query("error");
  const workspace = state.length <= STATE_MAX_CHARS ? workspaceOfState(state) : null;
  if (!workspace || !validWorkspace(workspace)) return page(400, "Not an authorization Duet started", "This link does not come from an authorization Duet started. Nothing was stored.");
  if (refused === undefined && (!code || code.length > CODE_MAX_CHARS)) return page(400, "No authorization code", "The authorization server sent no usable code. Nothing was stored.");
  // A refusal still spends the state, so the link cannot be used afterwards.
  const outcome = await c.env.TOOL_SERVERS.getByName(workspace).completeAuthorization(workspace, state, refused === undefined ? code! : null);
  if ("problem" in outcome) return page(400, "Not authorized", `${outcome.problem} Nothing was stored; the person who added the server gets a new link with /duet tools.`);
  return page(200, "Authorized", `Duet can now use the tool server ${outcome.server}. You can close this page.`);
});

function validWorkspace(raw: string): boolean {
  try {
    return workspaceOf(raw) === raw;
  } catch {
    return false;
  }
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** A plain page: no script, no outside resource, not cached, and no Referer carrying the query onwards. */
function page(status: 200 | 400, title: string, text: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Duet: ${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`;
  return new Response(html, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "content-security-policy": "default-src 'none'",
      "x-content-type-options": "nosniff",
    },
  });
}
