import { Hono } from "hono";
import { roomListRequestSchema } from "@duet/shared";
import { jsonBody } from "../request.ts";
import { send, type RoomApp } from "./rooms.ts";

/**
 * A workspace room's channel rooms with their settings (mounted at `/rooms`
 * in room-routes.ts): `POST /api/rooms/slack-T123/rooms` `{userId, channels?,
 * limit?}`. A POST because the channels a person is in may be thousands of ids.
 */
export const roomListRoutes = new Hono<RoomApp>();

roomListRoutes.post("/", jsonBody(roomListRequestSchema), async (c) => send(await c.var.room.listRooms(c.req.valid("json"))));
