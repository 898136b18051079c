/**
 * The built bots' one entry point: `node duet-bot.js <command>` runs the bot
 * the command names, so one container image serves both.
 */

const COMMANDS: Record<string, string> = {
  slack: "./slack/main.js",
  discord: "./discord/main.js",
  "discord-sharded": "./discord/shards.js",
  "discord-register": "./discord/register.js",
};

const command = process.argv[2] ?? "";
const target = COMMANDS[command];
if (!target) {
  console.error(`duet-bot: say which bot to run: ${Object.keys(COMMANDS).join(", ")}${command ? ` (got "${command}")` : ""}`);
  process.exit(2);
}
await import(target);

export {};
