import { Hono } from "hono";
import { eventClaimSchema } from "@duet/shared";
import type { Vars } from "../vars.ts";
import { jsonBody, scopeParam } from "../request.ts";
import type { EventClaims } from "./claims-object.ts";

/**
 * `POST /api/claims/:scope` `{id, ttlMs?}` → `{first}`: the bots' shared
 * "seen this delivery?" (bearer auth and the body limit come from the
 * `/api/*` middleware). One Durable Object per scope keeps the claims.
 */

type ClaimBindings = Vars & { EVENT_CLAIMS: DurableObjectNamespace<EventClaims> };

export const claimRoutes = new Hono<{ Bindings: ClaimBindings }>();

claimRoutes.post("/:scope", scopeParam, jsonBody(eventClaimSchema), async (c) => {
  const { scope } = c.req.valid("param");
  const body = c.req.valid("json");
  return c.json({ first: await c.env.EVENT_CLAIMS.getByName(scope).claim(body.id, body.ttlMs) });
});
