import { ConfigError } from "../config/env-config.ts";

/**
 * How a bot process that cannot start says so, whichever bot and whatever the
 * cause (configuration, a refused token, Discord or Slack unreachable, a port in
 * use): one line, `[slack] could not start: <reason>`, and exit code 1. Never a
 * stack trace: the reader is whoever runs the service, and the reason is the fix.
 */
export function failStartup(bot: "slack" | "discord", reason: unknown): never {
  console.error(`[${bot}] could not start: ${reason instanceof Error ? reason.message : String(reason)}`);
  process.exit(1);
}

/** `load()`'s config; a missing or malformed variable (a ConfigError) stops the bot in one line, anything else is a bug and throws. */
export function configOrFail<T>(bot: "slack" | "discord", load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    failStartup(bot, err);
  }
}
