import { createHash, randomBytes } from "node:crypto";
import { createMcpHandler, getOAuthProtectedResourceMetadataUrl, McpServer, OAuthError, OAuthErrorCode, oauthMetadataResponse, requireBearerAuth, type AuthInfo } from "@modelcontextprotocol/server";
import { listen, readBody, sendJson, type Listening } from "./http.ts";

/**
 * An MCP server behind OAuth, and its authorization server, on one
 * 127.0.0.1 port (the issuer is the port's origin):
 *
 *   /gated                                     the MCP server (official SDK, `requireBearerAuth`): one read-only tool `count`
 *   /closed                                    a server that answers 401 and publishes no metadata to authorize with
 *   /.well-known/oauth-protected-resource/gated its protected-resource metadata (the SDK's `oauthMetadataResponse`)
 *   /.well-known/oauth-authorization-server    the authorization server's metadata (S256, registration offered)
 *   POST /register                             dynamic client registration (public clients)
 *   GET  /authorize                            a person's consent, given at once: 302 back to the client's
 *                                              redirect_uri with a code and the state (a "click" on the link)
 *   POST /token                                authorization_code (the PKCE verifier checked against the
 *                                              challenge, the redirect_uri and resource against the authorize's)
 *                                              and refresh_token (rotated: a refresh token is good once)
 *
 * and what a test steers it with:
 *
 *   POST /_revoke         every access and refresh token stops working (a person revoked Duet)
 *   POST /_expires?s=N    tokens issued from now on say they last N seconds (0: no expires_in)
 *   GET  /_log            the grants asked for, each `count` call with the token generation it carried,
 *                         how many requests /gated refused, and every token issued (so a test can look
 *                         for them where they must never be)
 */
export interface FakeMcpOAuth extends Listening {
  /** The MCP server's address: what `/duet tools add` is given. */
  gatedUrl: string;
}

interface Issued {
  access: string;
  refresh: string;
  generation: number;
  resource: string;
  clientId: string;
  expiresAt: number;
}

export async function startFakeMcpOAuth(): Promise<FakeMcpOAuth> {
  const clients = new Map<string, { redirectUris: string[] }>();
  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string; resource: string; used: boolean }>();
  const issued: Issued[] = [];
  const grants: { type: string; ok: boolean; why?: string }[] = [];
  const calls: { generation: number }[] = [];
  let refused = 0;
  let expiresIn = 3600;
  let generation = 0;

  const issue = (clientId: string, resource: string) => {
    const t: Issued = {
      access: `fake-access-${randomBytes(18).toString("hex")}`,
      refresh: `fake-refresh-${randomBytes(18).toString("hex")}`,
      generation: ++generation,
      resource,
      clientId,
      // A token that says it lasts no time is still honoured an hour: the fake checks revocation, not the clock.
      expiresAt: Math.floor(Date.now() / 1000) + Math.max(expiresIn, 3600),
    };
    issued.push(t);
    return { access_token: t.access, token_type: "Bearer", refresh_token: t.refresh, ...(expiresIn > 0 ? { expires_in: expiresIn } : {}) };
  };

  let base = "";
  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const t = issued.find((i) => i.access === token && i.generation > 0);
      if (!t) throw new OAuthError(OAuthErrorCode.InvalidToken, "unknown or revoked token");
      return { token, clientId: t.clientId, scopes: [], expiresAt: t.expiresAt, resource: new URL(t.resource) };
    },
  };

  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? "/", base || "http://127.0.0.1");
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const body = req.method === "POST" ? await readBody(req) : undefined;
    const request = new Request(url, { method: req.method, headers, body });
    const reply = async (answer: Response) => {
      const out: Record<string, string> = {};
      answer.headers.forEach((value, key) => (out[key] = value));
      res.writeHead(answer.status, out);
      res.end(Buffer.from(await answer.arrayBuffer()));
    };

    if (url.pathname === "/_log") return sendJson(res, 200, { grants, calls, refused, tokens: issued.flatMap((t) => [t.access, t.refresh]) });
    if (url.pathname === "/_revoke") {
      for (const t of issued) t.generation = -Math.abs(t.generation);
      return sendJson(res, 200, { revoked: issued.length });
    }
    if (url.pathname === "/_expires") {
      expiresIn = Number(url.searchParams.get("s") ?? "3600");
      return sendJson(res, 200, { expiresIn });
    }

    const metadata = oauthMetadataResponse(request, {
      oauthMetadata: {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      },
      resourceServerUrl: new URL(`${base}/gated`),
      resourceName: "fake gated tracker",
      dangerouslyAllowInsecureIssuerUrl: true,
    });
    if (metadata) return reply(metadata);

    if (url.pathname === "/register" && req.method === "POST") {
      const meta = JSON.parse(body ?? "{}") as { redirect_uris?: unknown };
      if (!Array.isArray(meta.redirect_uris) || !meta.redirect_uris.length) return sendJson(res, 400, { error: "invalid_redirect_uri" });
      const clientId = `client-${randomBytes(6).toString("hex")}`;
      clients.set(clientId, { redirectUris: meta.redirect_uris.map(String) });
      return sendJson(res, 201, { client_id: clientId, redirect_uris: meta.redirect_uris, token_endpoint_auth_method: "none" });
    }

    if (url.pathname === "/authorize") {
      const q = url.searchParams;
      const client = clients.get(q.get("client_id") ?? "");
      const redirectUri = q.get("redirect_uri") ?? "";
      if (!client || !client.redirectUris.includes(redirectUri)) return sendJson(res, 400, { error: "invalid_client" });
      if (q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256" || !q.get("code_challenge") || !q.get("state")) return sendJson(res, 400, { error: "invalid_request" });
      const code = `code-${randomBytes(12).toString("hex")}`;
      codes.set(code, { clientId: q.get("client_id")!, redirectUri, challenge: q.get("code_challenge")!, resource: q.get("resource") ?? "", used: false });
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state")!);
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }

    if (url.pathname === "/token" && req.method === "POST") {
      const form = new URLSearchParams(body ?? "");
      const refuse = (type: string, why: string) => {
        grants.push({ type, ok: false, why });
        return sendJson(res, 400, { error: "invalid_grant", error_description: why });
      };
      if (form.get("grant_type") === "authorization_code") {
        const code = codes.get(form.get("code") ?? "");
        if (!code || code.used) return refuse("authorization_code", "unknown or used code");
        code.used = true;
        if (code.clientId !== form.get("client_id")) return refuse("authorization_code", "another client");
        if (code.redirectUri !== form.get("redirect_uri")) return refuse("authorization_code", "another redirect_uri");
        if (code.resource !== form.get("resource")) return refuse("authorization_code", "another resource");
        const challenge = createHash("sha256").update(form.get("code_verifier") ?? "").digest("base64url");
        if (challenge !== code.challenge) return refuse("authorization_code", "the PKCE verifier does not match");
        grants.push({ type: "authorization_code", ok: true });
        return sendJson(res, 200, issue(code.clientId, code.resource));
      }
      if (form.get("grant_type") === "refresh_token") {
        const t = issued.find((i) => i.refresh === form.get("refresh_token") && i.generation > 0);
        if (!t) return refuse("refresh_token", "unknown, used or revoked refresh token");
        // Rotated: the old pair stops working.
        t.generation = -t.generation;
        grants.push({ type: "refresh_token", ok: true });
        return sendJson(res, 200, issue(t.clientId, t.resource));
      }
      return sendJson(res, 400, { error: "unsupported_grant_type" });
    }

    if (url.pathname === "/closed") {
      res.writeHead(401, { "www-authenticate": 'Bearer error="invalid_token"' });
      return res.end();
    }
    if (url.pathname === "/gated") {
      const gate = requireBearerAuth({ verifier, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(`${base}/gated`)), expectedResource: new URL(`${base}/gated`) });
      const auth = await gate(request);
      if (auth instanceof Response) {
        refused++;
        return reply(auth);
      }
      const carried = issued.find((i) => i.access === auth.token)!.generation;
      const handler = createMcpHandler(() => {
        const server = new McpServer({ name: "fake-gated", version: "1.0.0" });
        server.registerTool("count", { description: "Counts the open issues", annotations: { readOnlyHint: true } }, async () => {
          calls.push({ generation: carried });
          return { content: [{ type: "text", text: "there are 42 open issues" }] };
        });
        return server;
      });
      return reply(await handler.fetch(request, { authInfo: auth }));
    }
    return sendJson(res, 404, { error: "no such path" });
  });
  base = listening.url;
  return { ...listening, gatedUrl: `${listening.url}/gated` };
}
