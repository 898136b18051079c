import { ConfigError, loadConfig, type DiscordConfig } from "./config.ts";
import { registerCommands } from "./register.ts";

/**
 * `pnpm --filter @duet/discord register` and the built `duet-bot.js discord-register`:
 * registers `/duet` and "Ask Duet" with the configuration from the environment and
 * says where, or why not in one line (exit code 1). Running it is its whole purpose,
 * so it runs when imported as well as when started (the built launcher imports it).
 */

/** One line for every failure, as the bots' start-up errors are. */
function fail(reason: unknown): never {
  console.error(`[discord] could not register commands: ${reason instanceof Error ? reason.message : String(reason)}`);
  process.exit(1);
}

let config: DiscordConfig;
try {
  config = loadConfig(process.env, "register");
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  fail(err);
}
try {
  const res = await registerCommands(config);
  const where = res.scope === "guild" ? `in server ${config.guildId} (usable now)` : "globally (Discord may take a while to show them everywhere)";
  console.log(`Registered ${res.names.join(" and ")} for application ${res.applicationId} ${where}.`);
} catch (err) {
  fail(err);
}
