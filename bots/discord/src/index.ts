export { createDiscordBot, type DiscordBot, type DiscordBotOptions } from "./bot.ts";
export { loadConfig, ConfigError, type DiscordConfig } from "./config.ts";
export { commandDefinitions, COMMAND_NAME } from "./commands.ts";
export { registerCommands } from "./register.ts";
export type { Logger } from "./deps.ts";
