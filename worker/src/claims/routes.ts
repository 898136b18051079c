import { Hono } from "hono";
import { eventClaimSchema } from "@duet/shared";
import type { Vars } from "../vars.ts";
import { methodNotAllowed, readJson, scopeOf } from "../request.ts";
import type { EventClaims } from "./claims-object.ts";

/**
 * `POST /api/claims/:scope` `{id, ttlMs?}` → `{first}`: the bots' shared
 * "seen this delivery?" (bearer auth and the body limit come from the
 * `/api/*` middleware). One Durable Object per scope keeps the claims.
 */

type ClaimBindings = Vars & { EVENT_CLAIMS: DurableObjectNamespace<EventClaims> };

export const claimRoutes = new Hono<{ Bindings: ClaimBindings }>();

claimRoutes.post("/api/claims/:scope", async (c) => {
  const scope = scopeOf(c.req.param("scope"));
  const body = await readJson(c, eventClaimSchema);
  return c.json({ first: await c.env.EVENT_CLAIMS.getByName(scope).claim(body.id, body.ttlMs) });
});
claimRoutes.all("/api/claims/:scope", methodNotAllowed);
