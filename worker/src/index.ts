import { app } from "./http/app.ts";

export { DuetAgent } from "./agent/duet-agent.ts";
// Production binds this class as the `Sandbox` Durable Object (see wrangler.toml [env.production]).
export { Sandbox } from "@cloudflare/sandbox";

export default app;
