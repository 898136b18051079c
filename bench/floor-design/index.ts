import { FloorRoom, type FloorEnv } from "./floor-room.ts";

/**
 * The floor design's Worker: `POST /api/rooms/:roomId/message` `{text}` is
 * handed to that room's object by RPC and its JSON answered; `/health` for the
 * stack's readiness check. No auth: it is a measuring stick, never deployed.
 */

const MESSAGE_ROUTE = /^\/api\/rooms\/([A-Za-z0-9._-]{1,200})\/message$/;

export default {
  async fetch(request: Request, env: FloorEnv): Promise<Response> {
    const room = MESSAGE_ROUTE.exec(new URL(request.url).pathname);
    if (!room) return new Response(request.method === "GET" ? "ok" : "not found", { status: request.method === "GET" ? 200 : 404 });
    const body = (await request.json().catch(() => null)) as { text?: unknown } | null;
    if (typeof body?.text !== "string" || !body.text.trim()) return Response.json({ error: "invalid request" }, { status: 400 });
    try {
      const json = await env.FLOOR_ROOM.getByName(room[1]).message(body.text);
      return new Response(json, { headers: { "content-type": "application/json" } });
    } catch (err) {
      return Response.json({ error: (err as Error).message }, { status: 502 });
    }
  },
} satisfies ExportedHandler<FloorEnv>;

export { FloorRoom };
