import { Hono } from "hono";
import { prOpenRequestSchema, prProposeRequestSchema } from "@duet/shared";
import { jsonBody } from "../request.ts";
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

/**
 * `POST /api/rooms/:roomId/repo/pr` `{userId, title?}`: the change in
 * `repo/` against the commit checked out, as the room's pull request
 * proposal (nothing is pushed); 404 with no repository or checkout, 409
 * `nothing_changed` when there is no change.
 */
repoRoutes.post("/pr", jsonBody(prProposeRequestSchema), async (c) => send(await c.var.room.proposePr(c.req.valid("json"))));

/**
 * `POST /api/rooms/:roomId/repo/pr/:id/open` `{userId, threadUrl?}`: Duet
 * commits the proposal's change, pushes it to its `duet/…` branch and opens
 * the pull request; `{url, number, branch}`. Opening it again answers the same.
 */
repoRoutes.post("/pr/:id/open", jsonBody(prOpenRequestSchema), async (c) => send(await c.var.room.openPr(c.req.param("id"), c.req.valid("json"))));
