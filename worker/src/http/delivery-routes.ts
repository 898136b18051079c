import { Hono } from "hono";
import { DELIVERY_PLATFORMS, DELIVERY_WAIT_MAX_MS, DuetError, deliveryConfirmSchema, deliveryHoldSchema, type DeliveryItem, type DeliveryPlatform } from "@duet/shared";
import type { Outcome } from "../outcome.ts";
import type { Env } from "../room/duet-agent.ts";
import { roomStub, send, type RoomApp } from "./rooms.ts";
import { jsonBody } from "../request.ts";

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
 * The outbox's feed, mounted at `/api/deliveries`: `GET /:platform?waitMs=`
 * reads the platform's feed (waiting up to waitMs for a room to be listed) and
 * claims the waiting answers of the rooms listed: `{items}`, each leased to
 * this read.
 */
export const deliveryFeedRoutes = new Hono<{ Bindings: Env }>();

deliveryFeedRoutes.get("/:platform", async (c) => {
  const platform = platformOf(c.req.param("platform"));
  const waitMs = waitOf(c.req.query("waitMs"));
  const rooms = await c.env.DELIVERY_FEED.getByName(platform).rooms(waitMs, ROOMS_PER_READ);
  const items: DeliveryItem[] = [];
  // Ids from the feed are rooms' own names, not a caller's input.
  for (const id of rooms) {
    const out = (await roomStub(c.env, id).claimDeliveries(platform)) as Outcome;
    if (out.status === 200) items.push(...(out.body as { items: DeliveryItem[] }).items);
    else console.error(`room ${id} could not hand out its deliveries`, out.body);
  }
  return c.json({ items });
});

/**
 * A room's side of the outbox, mounted at `/deliveries` in room-routes.ts:
 * `POST /` `{key, messageId, final}` records what a bot posted; `POST /hold`
 * `{key}` keeps an answer a bot is still posting leased to it.
 */
export const deliveryRoutes = new Hono<RoomApp>();

deliveryRoutes.post("/", jsonBody(deliveryConfirmSchema), async (c) => send(await c.var.room.confirmDelivery(c.req.valid("json"))));
deliveryRoutes.post("/hold", jsonBody(deliveryHoldSchema), async (c) => send(await c.var.room.holdDelivery(c.req.valid("json"))));
