export { createSlackBot, type SlackBot, type SlackBotOptions } from "./app.ts";
export { ConfigError, loadConfig, type SlackConfig } from "./config.ts";
export { channelRoom, mentionRoom } from "./rooms.ts";
export { LogLevel } from "@slack/bolt";
