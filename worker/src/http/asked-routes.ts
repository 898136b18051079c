import { Hono } from "hono";
import { validator } from "hono/validator";
import { ASKED_KEY_PATTERN, ASKED_KEY_RULE, askedMessageSchema, DuetError } from "@duet/shared";
import { jsonBody } from "../request.ts";
import { send, type RoomApp } from "./rooms.ts";

/**
 * The messages "Ask Duet" forms are open on (mounted at `/asked` in
 * room-routes.ts): `PUT /:key` keeps one while its form is open, `POST
 * /:key/take` reads it once as the form is submitted. The key is checked
 * before the body is read or the room woken.
 */
export const askedRoutes = new Hono<RoomApp>();

const askedKey = validator("param", (params: { key?: string }) => {
  if (!ASKED_KEY_PATTERN.test(params.key ?? "")) throw new DuetError("invalid_request", "invalid request", { details: { key: [ASKED_KEY_RULE] } });
  return { key: params.key as string };
});

askedRoutes.put("/:key", askedKey, jsonBody(askedMessageSchema), async (c) => send(await c.var.room.keepAsked(c.req.valid("param").key, c.req.valid("json"))));
askedRoutes.post("/:key/take", askedKey, async (c) => send(await c.var.room.takeAsked(c.req.valid("param").key)));
