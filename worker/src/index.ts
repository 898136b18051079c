import { app } from "./http/app.ts";
import type { Env } from "./room/duet-agent.ts";

export { DuetAgent } from "./room/duet-agent.ts";
export { InstallationStore } from "./installations/store-object.ts";
export { DeliveryFeed } from "./outbox/feed-object.ts";
export { EventClaims } from "./claims/claims-object.ts";
export { PaceSlots } from "./pace/pace-object.ts";
export { PersonUsage } from "./usage/person-object.ts";
export { PullRooms } from "./github/webhook-index-object.ts";
export { ToolServers } from "./tools/tool-servers.ts";
// Production binds this class as the `Sandbox` Durable Object (see wrangler.toml [env.production]);
// ContainerProxy is where its outbound host rules are applied.
export { DuetSandbox as Sandbox, ContainerProxy } from "./sandbox/durable-sandbox.ts";

export default {
  fetch: app.fetch,
  // Duet has no cron triggers (a room's schedules are its own alarms). This no-op
  // answers the local dev server's unauthenticated /cdn-cgi/handler/scheduled
  // without an error, and runs nothing.
  scheduled() {},
} satisfies ExportedHandler<Env>;
