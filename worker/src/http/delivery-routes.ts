import { Hono } from "hono";
import { DELIVERY_PLATFORMS, DELIVERY_WAIT_MAX_MS, DuetError, deliveryConfirmSchema, deliveryHoldSchema, type DeliveryItem, type DeliveryPlatform } from "@duet/shared";
import type { Outcome } from "../outcome.ts";
import type { Env } from "../room/duet-agent.ts";
import { room, send } from "./rooms.ts";
import { methodNotAllowed, readJson } from "../request.ts";

/** Rooms asked per feed read: a bot reads again for the rest. */
const ROOMS_PER_READ = 20;

function platformOf(raw: string): DeliveryPlatform {
  if ((DELIVERY_PLATFORMS as readonly string[]).includes(raw)) return raw as DeliveryPlatform;
  throw new DuetError("invalid_request", "invalid request", { details: { platform: ["Platform must be slack or discord"] } });
}

function waitOf(raw: string | undefined): number {
  if (raw === undefined) return 0;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0 || ms > DELIVERY_WAIT_MAX_MS) {
    throw new DuetError("invalid_request", "invalid request", { details: { waitMs: [`waitMs must be a whole number from 0 to ${DELIVERY_WAIT_MAX_MS}`] } });
  }
  return ms;
}

/**
 * The outbox's HTTP side. `GET /api/deliveries/:platform?waitMs=` reads the
 * platform's feed (waiting up to waitMs for a room to be listed) and claims
 * the waiting answers of the rooms listed: `{items}`, each leased to this
 * read. `POST /api/rooms/:roomId/deliveries` `{key, messageId, final}`
 * records what a bot posted; `POST /api/rooms/:roomId/deliveries/hold` `{key}`
 * keeps an answer a bot is still posting leased to it.
 */
export const deliveryRoutes = new Hono<{ Bindings: Env }>();

deliveryRoutes.get("/api/deliveries/:platform", async (c) => {
  const platform = platformOf(c.req.param("platform"));
  const waitMs = waitOf(c.req.query("waitMs"));
  const rooms = await c.env.DELIVERY_FEED.getByName(platform).rooms(waitMs, ROOMS_PER_READ);
  const items: DeliveryItem[] = [];
  for (const id of rooms) {
    const out = (await room(c.env, id).claimDeliveries(platform)) as Outcome;
    if (out.status === 200) items.push(...(out.body as { items: DeliveryItem[] }).items);
    else console.error(`room ${id} could not hand out its deliveries`, out.body);
  }
  return c.json({ items });
});
deliveryRoutes.all("/api/deliveries/:platform", methodNotAllowed);

deliveryRoutes.post("/api/rooms/:roomId/deliveries", async (c) => {
  const stub = room(c.env, c.req.param("roomId"));
  return send(await stub.confirmDelivery(await readJson(c, deliveryConfirmSchema)));
});
deliveryRoutes.all("/api/rooms/:roomId/deliveries", methodNotAllowed);

deliveryRoutes.post("/api/rooms/:roomId/deliveries/hold", async (c) => {
  const stub = room(c.env, c.req.param("roomId"));
  return send(await stub.holdDelivery(await readJson(c, deliveryHoldSchema)));
});
deliveryRoutes.all("/api/rooms/:roomId/deliveries/hold", methodNotAllowed);
