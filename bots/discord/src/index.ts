export { createDiscordBot, type DiscordBot, type DiscordBotOptions } from "./bot.ts";
export { loadConfig, ConfigError, type DiscordConfig } from "./config.ts";
export { commandDefinitions, COMMAND_NAME } from "./commands.ts";
export { registerCommands } from "./register.ts";
export type { Logger } from "./deps.ts";
export { DiscordLiveMessage, LIVE_INTERVAL_MS, STOP_PREFIX, liveContent } from "./live/live-message.ts";
export { interactionTarget, messageTarget, type LiveTarget } from "./live/targets.ts";
export { renderMessage, renderReply } from "./render.ts";
export { REST, Routes } from "discord.js";
