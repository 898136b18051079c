import { boundedText } from "./mcp-rpc.ts";
import { isPrivateHost } from "./tool-input.ts";

/**
 * OAuth for MCP servers, as the MCP authorization spec asks (OAuth 2.1 with
 * PKCE): the server's 401 names its protected-resource metadata (RFC 9728),
 * which names its authorization server, whose metadata (RFC 8414) gives the
 * endpoints; Duet registers itself there when it offers dynamic client
 * registration (RFC 7591), sends the person to authorize with an S256 code
 * challenge and the server as `resource` (RFC 8707), and trades the code, then
 * refresh tokens, at the token endpoint. Only fetch and WebCrypto: nothing here
 * stores anything (tool-oauth.ts keeps the grants, sealed).
 */

/** How long a metadata, registration or token request may take. */
const OAUTH_TIMEOUT_MS = 10_000;
/** A metadata or token answer past this is not read. */
const OAUTH_ANSWER_MAX_BYTES = 64 * 1024;

/** Why an authorization could not start or finish, as the line a person reads. */
export class OAuthProblem extends Error {}

/** What Duet keeps of a server's authorization (sealed): where to trade codes and refresh tokens, as which client. */
export interface OAuthGrant {
  resource: string;
  tokenEndpoint: string;
  clientId: string;
  clientSecret?: string;
  scope?: string;
  redirectUri: string;
  tokens?: OAuthTokens;
}

export interface OAuthTokens {
  access: string;
  refresh?: string;
  /** Milliseconds since the epoch; absent when the server did not say. */
  expiresAt?: number;
}

/** A started authorization: the grant so far, and the link the person opens. */
export interface OAuthStart {
  grant: OAuthGrant;
  url: string;
  verifier: string;
}

/** `Bearer resource_metadata="…", scope="…"` read into its parameters (lower-case names). */
export function challengeParams(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of header.matchAll(/([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) out[m[1].toLowerCase()] = (m[2] ?? m[3]).replace(/\\(.)/g, "$1");
  return out;
}

/** A URL a server's metadata named, refused unless it is one Duet may call (as the server's own address is). */
function reachable(raw: unknown, what: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new OAuthProblem(`its authorization metadata names ${what} that is not a URL`);
  }
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) throw new OAuthProblem(`its authorization metadata names ${what} that is not https`);
  if (!allowPrivate && isPrivateHost(url.hostname)) throw new OAuthProblem(`its authorization metadata names ${what} on a private address`);
  if (url.username || url.password) throw new OAuthProblem(`its authorization metadata names ${what} with credentials in it`);
  return url;
}

async function readJson(res: Response, what: string): Promise<Record<string, unknown>> {
  const text = await boundedText(res, OAUTH_ANSWER_MAX_BYTES, () => new OAuthProblem(`its ${what} is too long to read`));
  try {
    const body = JSON.parse(text) as unknown;
    if (body && typeof body === "object" && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // Worded below.
  }
  throw new OAuthProblem(`its ${what} is not JSON`);
}

async function send(url: URL, init: RequestInit, what: string): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(OAUTH_TIMEOUT_MS) });
  } catch (err) {
    throw new OAuthProblem(`its ${what} could not be reached (${(err as Error).message})`);
  }
}

/** The first of `urls` that answers 200 with JSON, or null. */
async function firstMetadata(urls: URL[], what: string): Promise<Record<string, unknown> | null> {
  for (const url of urls) {
    const res = await send(url, { headers: { accept: "application/json" } }, what);
    if (res.ok) return readJson(res, what);
    await res.body?.cancel();
  }
  return null;
}

/** RFC 9728's well-known address for `server`, path-aware first, then at the origin. */
function resourceMetadataUrls(server: URL): URL[] {
  const path = server.pathname === "/" ? "" : server.pathname.replace(/\/$/, "");
  const urls = [new URL(`/.well-known/oauth-protected-resource${path}`, server.origin)];
  if (path) urls.push(new URL("/.well-known/oauth-protected-resource", server.origin));
  return urls;
}

/** RFC 8414's and OpenID's well-known addresses for an issuer, in the order the MCP spec asks. */
function authServerMetadataUrls(issuer: URL): URL[] {
  const path = issuer.pathname === "/" ? "" : issuer.pathname.replace(/\/$/, "");
  if (!path) return [new URL("/.well-known/oauth-authorization-server", issuer.origin), new URL("/.well-known/openid-configuration", issuer.origin)];
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
    new URL(`/.well-known/openid-configuration${path}`, issuer.origin),
    new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
  ];
}

const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** A random URL-safe string of `bytes` random bytes. */
export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

export async function sha256Base64url(text: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
}

/**
 * Starts an authorization for the server at `serverUrl`, which answered 401
 * with `challenge`: discovery, registration, and the link carrying `state`
 * and an S256 challenge of a fresh verifier.
 */
export async function startAuthorization(serverUrl: string, challenge: string, redirectUri: string, state: string, allowPrivate: boolean): Promise<OAuthStart> {
  const server = new URL(serverUrl);
  const params = challengeParams(challenge);
  const named = params.resource_metadata ? [reachable(params.resource_metadata, "a resource metadata address", allowPrivate)] : resourceMetadataUrls(server);
  const prm = await firstMetadata(named, "protected-resource metadata");
  if (!prm) throw new OAuthProblem("it asks for OAuth but publishes no protected-resource metadata");
  const issuers = Array.isArray(prm.authorization_servers) ? prm.authorization_servers : [];
  if (!issuers.length) throw new OAuthProblem("its protected-resource metadata names no authorization server");
  const resource = typeof prm.resource === "string" ? prm.resource : serverUrl;
  if (reachable(resource, "a resource", allowPrivate).origin !== server.origin) throw new OAuthProblem("its protected-resource metadata names another server as the resource");
  const issuer = reachable(issuers[0], "an authorization server", allowPrivate);
  const as = await firstMetadata(authServerMetadataUrls(issuer), "authorization-server metadata");
  if (!as) throw new OAuthProblem("its authorization server publishes no metadata");
  const methods = Array.isArray(as.code_challenge_methods_supported) ? as.code_challenge_methods_supported : [];
  if (!methods.includes("S256")) throw new OAuthProblem("its authorization server does not offer PKCE with S256, which Duet requires");
  const authorize = reachable(as.authorization_endpoint, "an authorization endpoint", allowPrivate);
  const tokenEndpoint = reachable(as.token_endpoint, "a token endpoint", allowPrivate).toString();
  if (as.registration_endpoint === undefined) throw new OAuthProblem("its authorization server does not offer dynamic client registration, so Duet cannot register with it");
  const registration = reachable(as.registration_endpoint, "a registration endpoint", allowPrivate);
  const scopes = Array.isArray(prm.scopes_supported) ? prm.scopes_supported.filter((s): s is string => typeof s === "string") : [];
  const scope = params.scope ?? (scopes.length ? scopes.join(" ") : undefined);
  const client = await register(registration, redirectUri, scope);
  const verifier = randomToken(48);
  const url = new URL(authorize);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: redirectUri,
    code_challenge: await sha256Base64url(verifier),
    code_challenge_method: "S256",
    state,
    resource,
    ...(scope ? { scope } : {}),
  }).toString();
  return { grant: { resource, tokenEndpoint, redirectUri, ...client, ...(scope ? { scope } : {}) }, url: url.toString(), verifier };
}

async function register(endpoint: URL, redirectUri: string, scope: string | undefined): Promise<{ clientId: string; clientSecret?: string }> {
  const res = await send(
    endpoint,
    {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        client_name: "Duet",
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        ...(scope ? { scope } : {}),
      }),
    },
    "client registration",
  );
  if (!res.ok) {
    await res.body?.cancel();
    throw new OAuthProblem(`its authorization server refused to register Duet (HTTP ${res.status})`);
  }
  const body = await readJson(res, "client registration");
  if (typeof body.client_id !== "string" || !body.client_id) throw new OAuthProblem("its authorization server registered Duet without a client id");
  return { clientId: body.client_id, ...(typeof body.client_secret === "string" && body.client_secret ? { clientSecret: body.client_secret } : {}) };
}

/** Trades the code from the callback for tokens. */
export function exchangeCode(grant: OAuthGrant, code: string, verifier: string): Promise<OAuthTokens> {
  return tokenRequest(grant, { grant_type: "authorization_code", code, redirect_uri: grant.redirectUri, code_verifier: verifier });
}

/** New tokens for the refresh token (a server that sends no new refresh token keeps the old one valid). */
export async function refreshTokens(grant: OAuthGrant): Promise<OAuthTokens> {
  const refresh = grant.tokens?.refresh;
  if (!refresh) throw new OAuthProblem("its access token ran out and it gave no refresh token");
  const tokens = await tokenRequest(grant, { grant_type: "refresh_token", refresh_token: refresh });
  return { ...tokens, refresh: tokens.refresh ?? refresh };
}

async function tokenRequest(grant: OAuthGrant, form: Record<string, string>): Promise<OAuthTokens> {
  const body = new URLSearchParams({ ...form, client_id: grant.clientId, resource: grant.resource });
  if (grant.clientSecret) body.set("client_secret", grant.clientSecret);
  const res = await send(new URL(grant.tokenEndpoint), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" }, body }, "token endpoint");
  const answer = await readJson(res, "token answer").catch((err: unknown) => {
    if (res.ok) throw err;
    return {} as Record<string, unknown>;
  });
  if (!res.ok) {
    // The error code is the server's word (invalid_grant, …); its description is left out, being free text.
    const code = typeof answer.error === "string" && /^[a-z_]{1,40}$/.test(answer.error) ? `: ${answer.error}` : "";
    throw new OAuthProblem(`its token endpoint refused (HTTP ${res.status}${code})`);
  }
  if (typeof answer.access_token !== "string" || !answer.access_token) throw new OAuthProblem("its token endpoint answered without an access token");
  if (typeof answer.token_type === "string" && answer.token_type.toLowerCase() !== "bearer") throw new OAuthProblem("its token endpoint answered a token that is not a bearer token");
  const expiresIn = typeof answer.expires_in === "number" && answer.expires_in > 0 ? answer.expires_in : undefined;
  return {
    access: answer.access_token,
    ...(typeof answer.refresh_token === "string" && answer.refresh_token ? { refresh: answer.refresh_token } : {}),
    ...(expiresIn ? { expiresAt: Date.now() + expiresIn * 1000 } : {}),
  };
}
