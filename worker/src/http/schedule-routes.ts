import { Hono } from "hono";
import { DuetError, SCHEDULE_ID_PATTERN, scheduleRequestSchema, unscheduleRequestSchema } from "@duet/shared";
import type { Env } from "../room/duet-agent.ts";
import { room, send } from "./rooms.ts";
import { methodNotAllowed, readJson } from "../request.ts";

/** A room's schedules (mounted under the token check in app.ts): who may schedule is the bots' call, the room records who did. */
export const scheduleRoutes = new Hono<{ Bindings: Env }>();

scheduleRoutes.post("/api/rooms/:roomId/schedules", async (c) => {
  const stub = room(c.env, c.req.param("roomId"));
  return send(await stub.addAsk(await readJson(c, scheduleRequestSchema)));
});
scheduleRoutes.get("/api/rooms/:roomId/schedules", async (c) => {
  return send(await room(c.env, c.req.param("roomId")).scheduledAsks());
});
scheduleRoutes.all("/api/rooms/:roomId/schedules", methodNotAllowed);

scheduleRoutes.delete("/api/rooms/:roomId/schedules/:id", async (c) => {
  const stub = room(c.env, c.req.param("roomId"));
  const id = c.req.param("id");
  if (!SCHEDULE_ID_PATTERN.test(id)) {
    throw new DuetError("invalid_request", "invalid request", { details: { id: ["Schedule id must be 1-32 lower-case letters or digits"] } });
  }
  return send(await stub.removeAsk(id, await readJson(c, unscheduleRequestSchema)));
});
scheduleRoutes.all("/api/rooms/:roomId/schedules/:id", methodNotAllowed);
