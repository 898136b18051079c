import { getAgentByName } from "agents";
import { SeedAgent, type SeedEnv } from "./seed-agent.ts";

/**
 * The seed design's Worker: `/api/rooms/:roomId/*` is handed to that room's
 * Agent as the HTTP request it is. The same routes the benchmark drives on
 * Duet's Worker (message, messages, stats) and `/health`; no auth, as the seed had none.
 */

const ROOM_ROUTE = /^\/api\/rooms\/([A-Za-z0-9._-]{1,200})\/(message|messages|stats)$/;

export default {
  async fetch(request: Request, env: SeedEnv): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/health") return new Response("ok");
    const room = ROOM_ROUTE.exec(path);
    if (!room) return Response.json({ error: "not found" }, { status: 404 });
    const agent = await getAgentByName(env.SEED_AGENT, room[1]);
    return agent.fetch(request);
  },
} satisfies ExportedHandler<SeedEnv>;

export { SeedAgent };
