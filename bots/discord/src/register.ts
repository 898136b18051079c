import { DISCORD_COMMAND_WORDS } from "@duet/shared";
import { REST, Routes, type RESTOptions } from "discord.js";
import { restOptions } from "./bot.ts";
import { commandDefinitions } from "./commands.ts";
import type { DiscordConfig } from "./config.ts";

/**
 * Sends the `/duet` and "Ask Duet" definitions to Discord (`register-main.ts` runs it). With
 * DISCORD_GUILD_ID they go to that server only and work at once; without it
 * they are global. PUT replaces the whole list, so running it again is safe.
 */

export interface RegisterResult {
  scope: "guild" | "global";
  applicationId: string;
  /** The commands as a person finds them: `/duet`, and "Ask Duet" in a message's Apps menu. */
  names: string[];
}

/** Discord's command types: 1 a slash command, 3 a message's context-menu command. */
const MESSAGE_COMMAND = 3;

function shownName(cmd: { name: string; type?: number }): string {
  return cmd.type === MESSAGE_COMMAND ? DISCORD_COMMAND_WORDS.messageCommand(cmd.name) : `/${cmd.name}`;
}

export async function registerCommands(config: DiscordConfig, rest: Partial<RESTOptions> = {}): Promise<RegisterResult> {
  const client = new REST(restOptions(config, rest)).setToken(config.token);
  // The application id is the bot's; ask Discord when it is not configured.
  const applicationId = config.applicationId ?? ((await client.get(Routes.currentApplication())) as { id: string }).id;
  const route = config.guildId ? Routes.applicationGuildCommands(applicationId, config.guildId) : Routes.applicationCommands(applicationId);
  const saved = (await client.put(route, { body: commandDefinitions() })) as { name: string; type?: number }[];
  return { scope: config.guildId ? "guild" : "global", applicationId, names: saved.map(shownName) };
}
