import { Hono } from "hono";
import { CLAIM_SCOPE, DuetError, eventClaimSchema } from "@duet/shared";
import type { Vars } from "../vars.ts";
import { methodNotAllowed, readJson } from "../request.ts";
import type { EventClaims } from "./claims-object.ts";

/**
 * `POST /api/claims/:scope` `{id, ttlMs?}` → `{first}`: the bots' shared
 * "seen this delivery?" (bearer auth and the body limit come from the
 * `/api/*` middleware). One Durable Object per scope keeps the claims.
 */

type ClaimBindings = Vars & { EVENT_CLAIMS: DurableObjectNamespace<EventClaims> };

export const claimRoutes = new Hono<{ Bindings: ClaimBindings }>();

function scopeOf(raw: string | undefined): string {
  if (!raw || !CLAIM_SCOPE.test(raw)) {
    throw new DuetError("invalid_request", "invalid request", {
      details: { scope: ["Scope must be 1-100 characters from A-Z a-z 0-9 . _ - (a platform and workspace, e.g. slack-T123)"] },
    });
  }
  return raw;
}

claimRoutes.post("/api/claims/:scope", async (c) => {
  const scope = scopeOf(c.req.param("scope"));
  const body = await readJson(c, eventClaimSchema);
  return c.json({ first: await c.env.EVENT_CLAIMS.getByName(scope).claim(body.id, body.ttlMs) });
});
claimRoutes.all("/api/claims/:scope", methodNotAllowed);
