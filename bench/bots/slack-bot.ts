import { createSlackBot, loadConfig } from "@duet/slack";
import { serveParent } from "./serve-parent.ts";
import { countWorkerTraffic } from "./worker-connections.ts";

/**
 * The Slack bot in a process of its own (so its memory is its own), started
 * against the fake Slack the parent names in the environment, as `pnpm dev:slack`
 * would start it, except that it listens on 127.0.0.1 only and never retries a
 * failed Web API call (a benchmark must not hide a failure behind retries).
 */
const config = loadConfig();
const traffic = countWorkerTraffic(config.workerUrl);
const bot = createSlackBot(config, { host: "127.0.0.1", retryConfig: { retries: 0 } });
await bot.start();
serveParent({ port: bot.port ?? null }, traffic, () => bot.stop());
