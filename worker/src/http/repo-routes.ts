import { Hono } from "hono";
import { send, type RoomApp } from "./rooms.ts";

/**
 * `POST /api/rooms/:roomId/repo/sync` (mounted in room-routes.ts): checks the
 * room's repository out at `repo/` in its workspace now, or fetches into the
 * checkout there; answers the repository's view with `checkout: {sha, at}`
 * once it is made (404 when the room has none, the checkout's one-line error
 * otherwise). No body.
 */
export const repoRoutes = new Hono<RoomApp>();

repoRoutes.post("/sync", async (c) => send(await c.var.room.syncRepo()));
