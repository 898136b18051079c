import { Hono } from "hono";
import type { Env } from "../room/duet-agent.ts";
import { methodNotAllowed } from "../request.ts";
import { room, send } from "./rooms.ts";

/**
 * `POST /api/rooms/:roomId/repo/sync`: checks the room's repository out at
 * `repo/` in its workspace now, or fetches into the checkout there; answers
 * the repository's view with `checkout: {sha, at}` once it is made (404 when
 * the room has none, the checkout's one-line error otherwise). No body.
 */
export const repoRoutes = new Hono<{ Bindings: Env }>();

repoRoutes.post("/api/rooms/:roomId/repo/sync", async (c) => {
  return send(await room(c.env, c.req.param("roomId")).syncRepo());
});
repoRoutes.all("/api/rooms/:roomId/repo/sync", methodNotAllowed);
