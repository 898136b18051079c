import { checkWorkerToken } from "@duet/shared";
import type { HealthServer } from "@duet/shared/health";
import { configOrFail, failStartup } from "@duet/shared/startup";
import { loadConfig } from "./config.ts";

/**
 * `pnpm dev:slack` / `pnpm start:slack`: read the config once, check the
 * Worker's token, start the bot (and /healthz on HEALTH_PORT in Socket Mode),
 * stop cleanly on SIGINT/SIGTERM. A bad config or a refused token ends start-up
 * with one line and exit code 1.
 */

async function main(): Promise<void> {
  const config = configOrFail("slack", loadConfig);
  // Bolt and the rest of the bot are loaded only once the configuration is read: a start refused for a bad variable says so sooner.
  const [{ createSlackBot }, { startHealthServer }] = await Promise.all([import("./app.ts"), import("@duet/shared/health")]);
  // A wrong DUET_API_TOKEN would fail every turn: better not to start. An unreachable
  // Worker is different: it may come up later, and the bot says so in chat meanwhile.
  const token = await checkWorkerToken(config.workerUrl, config.apiToken);
  if (token.status === "refused") failStartup("slack", token.reason);

  // A bot whose HTTP front thread died can no longer hear Slack: end, so the supervisor starts a new one.
  const bot = createSlackBot(config, {
    onFatal: (err) => {
      console.error(`duet-slack: ${err.message}`);
      process.exit(1);
    },
  });
  let health: HealthServer | undefined;
  try {
    // Up before the connection, so a probe sees "starting" rather than nothing.
    if (config.mode === "socket" && config.healthPort !== undefined) {
      health = await startHealthServer(config.healthPort, () => bot.health(), undefined, bot.metrics);
      console.log(`duet-slack: /healthz on port ${health.port}`);
    }
    await bot.start();
  } catch (err) {
    failStartup("slack", err);
  }
  // Said once the bot runs: a start-up that fails says only why it failed, in one line.
  if (token.status === "unknown") console.warn(`[slack] could not check DUET_API_TOKEN: ${token.reason}`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`duet-slack: ${signal} received, finishing answers in flight`);
    // /healthz answers 503 while the bot drains, then closes with the process.
    bot.stop().then(
      () => (health?.close() ?? Promise.resolve()).then(() => process.exit(0)),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

void main();
