import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The executor's bearer token for `pnpm dev:sandbox`. Without one, anyone who can
 * reach the port (every local user) runs commands in any room's workspace, so the
 * CLI refuses to start unless the token comes from somewhere or the person says,
 * in so many words, that they want an open executor.
 */

/** SANDBOX_TOKEN set to this starts an executor that asks for no token at all. */
export const NO_TOKEN_ON_PURPOSE = "none-i-know";

export type TokenChoice = { token: string; from: "environment" | "file" } | { token: undefined; from: "open on purpose" };

/** `SANDBOX_TOKEN=` from a `KEY=value` file (`.duet/tokens.env`, written by `pnpm dev`), if there. */
function tokenInFile(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^SANDBOX_TOKEN=(.+)$/.exec(line.trim());
    if (m) return m[1];
  }
  return undefined;
}

/** The token to require, or the one line to refuse with. `duetHome`: where `pnpm dev` keeps tokens.env. */
export function chooseToken(env: Record<string, string | undefined>, duetHome: string): TokenChoice | string {
  const set = env.SANDBOX_TOKEN?.trim();
  if (set === NO_TOKEN_ON_PURPOSE) return { token: undefined, from: "open on purpose" };
  if (set) return { token: set, from: "environment" };
  const file = join(duetHome, "tokens.env");
  const stored = tokenInFile(file);
  if (stored) return { token: stored, from: "file" };
  return `SANDBOX_TOKEN is not set and ${file} has none: without a token anyone on this machine can run commands in every room's workspace. Set SANDBOX_TOKEN (the Worker's), run \`pnpm dev\` once to create ${file}, or set SANDBOX_TOKEN=${NO_TOKEN_ON_PURPOSE} to start an open executor on purpose`;
}
