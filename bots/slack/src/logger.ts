import { redactSecrets } from "@duet/shared";
import { type Logger, LogLevel } from "@slack/bolt";

/**
 * The logger bolt, the Web API client and our handlers share: one line per
 * entry, level-filtered, and passed through the shared redaction so a token in
 * an error message never reaches the logs either.
 */

const ORDER: Record<LogLevel, number> = { [LogLevel.DEBUG]: 0, [LogLevel.INFO]: 1, [LogLevel.WARN]: 2, [LogLevel.ERROR]: 3 };

export function createLogger(level: LogLevel = LogLevel.INFO, name = "duet-slack"): Logger {
  let current = level;
  let label = name;
  const line = (lvl: LogLevel, msg: unknown[]) => {
    if (ORDER[lvl] < ORDER[current]) return;
    const text = msg.map((m) => (m instanceof Error ? m.message : typeof m === "string" ? m : safeJson(m))).join(" ");
    const out = `[${lvl.toUpperCase()}] ${label} ${redactSecrets(text)}`;
    if (lvl === LogLevel.ERROR || lvl === LogLevel.WARN) console.error(out);
    else console.log(out);
  };
  return {
    debug: (...m) => line(LogLevel.DEBUG, m),
    info: (...m) => line(LogLevel.INFO, m),
    warn: (...m) => line(LogLevel.WARN, m),
    error: (...m) => line(LogLevel.ERROR, m),
    setLevel: (l) => {
      current = l;
    },
    getLevel: () => current,
    setName: (n) => {
      label = n;
    },
  };
}

/**
 * `logger` with only its errors: for a call whose failure is reported whole by its
 * caller (auth.test at start-up), so the client's retry warnings do not come first.
 */
export function errorsOnly(logger: Logger): Logger {
  const quiet = () => {};
  return { ...logger, debug: quiet, info: quiet, warn: quiet, error: (...m) => logger.error(...m) };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
