import { pathToFileURL } from "node:url";
import { REST, Routes, type RESTOptions } from "discord.js";
import { restOptions } from "./bot.ts";
import { commandDefinitions } from "./commands.ts";
import { ConfigError, loadConfig, type DiscordConfig } from "./config.ts";

/**
 * `pnpm --filter @duet/discord register`: sends the `/duet` definitions to
 * Discord. With DISCORD_GUILD_ID they go to that server only and work at
 * once; without it they are global. PUT replaces the whole list, so running
 * it again is safe.
 */

export interface RegisterResult {
  scope: "guild" | "global";
  applicationId: string;
  names: string[];
}

export async function registerCommands(config: DiscordConfig, rest: Partial<RESTOptions> = {}): Promise<RegisterResult> {
  const client = new REST(restOptions(config, rest)).setToken(config.token);
  // The application id is the bot's; ask Discord when it is not configured.
  const applicationId = config.applicationId ?? ((await client.get(Routes.currentApplication())) as { id: string }).id;
  const route = config.guildId ? Routes.applicationGuildCommands(applicationId, config.guildId) : Routes.applicationCommands(applicationId);
  const saved = (await client.put(route, { body: commandDefinitions() })) as { name: string }[];
  return { scope: config.guildId ? "guild" : "global", applicationId, names: saved.map((c) => c.name) };
}

async function main(): Promise<void> {
  let config: DiscordConfig;
  try {
    config = loadConfig(process.env, "register");
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  try {
    const res = await registerCommands(config);
    const where = res.scope === "guild" ? `in server ${config.guildId} (usable now)` : "globally (Discord may take a while to show them everywhere)";
    console.log(`Registered /${res.names.join(", /")} for application ${res.applicationId} ${where}.`);
  } catch (err) {
    console.error(`could not register commands: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
