import { Hono } from "hono";
import { paceEndSchema, paceSlotSchema } from "@duet/shared";
import type { Vars } from "../vars.ts";
import { jsonBody, scopeParam } from "../request.ts";
import type { PaceSlots } from "./pace-object.ts";

/**
 * `POST /api/pace/:scope` `{channel, intervalMs?, holder?}` → `{waitMs}`: the bots'
 * shared pace for new messages; `POST /api/pace/:scope/end` `{channel, holder}` →
 * `{ended}`: the holder's new message was posted, so the next slot may count from it (bearer auth and the body limit come from the
 * `/api/*` middleware). One Durable Object per scope keeps its channels' slots.
 */

type PaceBindings = Vars & { PACE_SLOTS: DurableObjectNamespace<PaceSlots> };

export const paceRoutes = new Hono<{ Bindings: PaceBindings }>();

paceRoutes.post("/:scope", scopeParam, jsonBody(paceSlotSchema), async (c) => {
  const { scope } = c.req.valid("param");
  const body = c.req.valid("json");
  return c.json({ waitMs: await c.env.PACE_SLOTS.getByName(scope).slot(body.channel, body.intervalMs, body.holder) });
});

paceRoutes.post("/:scope/end", scopeParam, jsonBody(paceEndSchema), async (c) => {
  const { scope } = c.req.valid("param");
  const body = c.req.valid("json");
  return c.json({ ended: await c.env.PACE_SLOTS.getByName(scope).end(body.channel, body.holder) });
});
