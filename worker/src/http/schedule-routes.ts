import { Hono } from "hono";
import { validator } from "hono/validator";
import { DuetError, SCHEDULE_ID_PATTERN, scheduleRequestSchema, unscheduleRequestSchema } from "@duet/shared";
import { send, type RoomApp } from "./rooms.ts";
import { jsonBody } from "../request.ts";

/** A room's schedules (mounted at `/schedules` in room-routes.ts): who may schedule is the bots' call, the room records who did. */
export const scheduleRoutes = new Hono<RoomApp>();

scheduleRoutes.post("/", jsonBody(scheduleRequestSchema), async (c) => send(await c.var.room.addAsk(c.req.valid("json"))));
scheduleRoutes.get("/", async (c) => send(await c.var.room.scheduledAsks()));

// The schedule id is checked before the body is read.
const scheduleParam = validator("param", (params: { id?: string }) => {
  if (!params.id || !SCHEDULE_ID_PATTERN.test(params.id)) {
    throw new DuetError("invalid_request", "invalid request", { details: { id: ["Schedule id must be 1-32 lower-case letters or digits"] } });
  }
  return { id: params.id };
});
scheduleRoutes.delete("/:id", scheduleParam, jsonBody(unscheduleRequestSchema), async (c) => {
  return send(await c.var.room.removeAsk(c.req.valid("param").id, c.req.valid("json")));
});
