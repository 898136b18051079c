import { idListVar, intVar } from "../config/env-config.ts";
import { DEFAULT_FILE_MAX_BYTES } from "../wire/limits.ts";

/**
 * The bots' file settings, read as both bots read them: the size limit the
 * Worker also applies (so a file too big is refused before it is downloaded),
 * and exact origins a bot may fetch shared files from besides the platform's
 * own hosts: a fake platform on 127.0.0.1 in tests, a proxy in development.
 */

const isOrigin = (v: string): boolean => {
  try {
    return new URL(v).origin === v;
  } catch {
    return false;
  }
};

export const fileMaxBytesVar = intVar("DUET_FILE_MAX_BYTES", DEFAULT_FILE_MAX_BYTES, 1, 2 ** 40);

/** `name`: comma-separated origins (`http://127.0.0.1:4567`), no path, no trailing slash. */
export const fileOriginsVar = (name: string) => idListVar(name, isOrigin, "an origin such as http://127.0.0.1:4567 (scheme, host and port, no path)");
