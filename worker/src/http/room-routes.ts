import { Hono } from "hono";
import { DuetError } from "@duet/shared";
import { askedRoutes } from "./asked-routes.ts";
import { controlRoutes, resetBy } from "./control-routes.ts";
import { deliveryRoutes } from "./delivery-routes.ts";
import { fileRoutes } from "./file-routes.ts";
import { memoryRoutes } from "./memory-routes.ts";
import { repoRoutes } from "./repo-routes.ts";
import { roomListRoutes } from "./room-list-routes.ts";
import { send, withRoom, type RoomApp } from "./rooms.ts";
import { scheduleRoutes } from "./schedule-routes.ts";
import { turnRoutes } from "./turn-routes.ts";
import { roomToolRoutes } from "./tool-routes.ts";

/**
 * Everything under `/api/rooms/:roomId` (mounted in app.ts). The room id is
 * checked here, once, before any route runs (a bad one is the same 400 on
 * every path, and no room is woken for it); each route finds the room on
 * `c.var.room` and its checked body in `c.req.valid("json")`.
 */
export const roomRoutes = new Hono<RoomApp>();

roomRoutes.use(withRoom);

roomRoutes.route("/", turnRoutes);
roomRoutes.route("/", controlRoutes);
roomRoutes.route("/deliveries", deliveryRoutes);
roomRoutes.route("/schedules", scheduleRoutes);
roomRoutes.route("/files", fileRoutes);
roomRoutes.route("/memory", memoryRoutes);
roomRoutes.route("/asked", askedRoutes);
roomRoutes.route("/repo", repoRoutes);
roomRoutes.route("/tools", roomToolRoutes);
roomRoutes.route("/rooms", roomListRoutes);

// `?userId=`: who reset the room, recorded in its emptied audit; `&keepMemory=1`: their reset keeps the pinned facts;
// `&ifResetAt=<ms>`: only if the room was last reset then (GET /memory's `resetAt`), so a stale reset button resets nothing.
roomRoutes.delete("/", async (c) => {
  const userId = resetBy(c.req.query("userId"));
  return send(await c.var.room.cleanup(userId, userId !== undefined && c.req.query("keepMemory") === "1", resetStamp(c.req.query("ifResetAt"))));
});

/** `ifResetAt` as a number of ms (GET /memory's `resetAt`), or undefined when absent; anything else is a 400. */
function resetStamp(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,15}$/.test(raw)) throw new DuetError("invalid_request", "invalid request", { details: { ifResetAt: ["ifResetAt must be a whole number of milliseconds, as GET /memory's resetAt"] } });
  return Number(raw);
}
