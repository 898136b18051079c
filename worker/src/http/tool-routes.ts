import { Hono } from "hono";
import { validator } from "hono/validator";
import { jsonBody } from "../request.ts";
import { roomToolSchema, serverNameOf } from "../tools/tool-input.ts";
import { resetBy } from "./control-routes.ts";
import { send, type RoomApp } from "./rooms.ts";

/**
 * `/api/rooms/:roomId/tools` (mounted in room-routes.ts): the tool servers of
 * the room's workspace that this room turned on. GET lists them, PUT `/:name`
 * turns one on (`{userId?}`), DELETE `/:name` turns it off (`?userId=`).
 */
export const roomToolRoutes = new Hono<RoomApp>();

const nameParam = validator("param", (p: { name?: string }) => ({ name: serverNameOf(p.name) }));

roomToolRoutes.get("/", async (c) => send(await c.var.room.roomTools()));

roomToolRoutes.put("/:name", nameParam, jsonBody(roomToolSchema), async (c) => {
  return send(await c.var.room.enableTool(c.req.valid("param").name, c.req.valid("json").userId ?? null));
});

roomToolRoutes.delete("/:name", nameParam, async (c) => {
  resetBy(c.req.query("userId"));
  return send(await c.var.room.disableTool(c.req.valid("param").name));
});
