import { createDiscordBot, loadConfig } from "@duet/discord";
import { answerConfirmed, serveParent } from "./serve-parent.ts";
import { countConfirms, countWorkerTraffic } from "./worker-connections.ts";

/**
 * The Discord bot in a process of its own (so its memory is its own), against
 * the fake Discord the parent names in the environment. Discord's global REST
 * limit (50 requests/s) is raised as in the tests: a benchmark measures Duet,
 * not discord.js's queue.
 */
const config = loadConfig();
const traffic = countWorkerTraffic(config.workerUrl);
const confirms = countConfirms(config.workerUrl);
const bot = createDiscordBot(config, { rest: { globalRequestsPerSecond: 1_000 } });
await bot.start();
serveParent({ port: null }, traffic, () => bot.stop());
answerConfirmed(confirms);
