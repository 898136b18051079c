import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
/**
 * Where `pnpm dev` keeps local state: the Worker's storage, sandboxes and the shared
 * tokens. DUET_HOME moves it (tests use a temporary one so they never touch yours).
 */
export const DUET_DIR = resolve(process.env.DUET_HOME || join(REPO_ROOT, ".duet"));
export const TOKENS_FILE = join(DUET_DIR, "tokens.env");

export interface DevTokens {
  DUET_API_TOKEN: string;
  SANDBOX_TOKEN: string;
}

/**
 * The tokens the local Worker, executor, bots and CLI share. Created on first
 * run (random, 0600), read afterwards; variables already set in the
 * environment win, so an operator can pin them.
 */
export function devTokens(): DevTokens {
  mkdirSync(DUET_DIR, { recursive: true });
  const stored = readStoredTokens();
  const tokens: DevTokens = {
    DUET_API_TOKEN: process.env.DUET_API_TOKEN || stored.DUET_API_TOKEN || randomBytes(24).toString("hex"),
    SANDBOX_TOKEN: process.env.SANDBOX_TOKEN || stored.SANDBOX_TOKEN || randomBytes(24).toString("hex"),
  };
  if (stored.DUET_API_TOKEN !== tokens.DUET_API_TOKEN || stored.SANDBOX_TOKEN !== tokens.SANDBOX_TOKEN) {
    writeFileSync(TOKENS_FILE, `DUET_API_TOKEN=${tokens.DUET_API_TOKEN}\nSANDBOX_TOKEN=${tokens.SANDBOX_TOKEN}\n`, { mode: 0o600 });
  }
  return tokens;
}

/** The tokens saved in `.duet/tokens.env`, without creating anything (the CLI only reads). */
export function readStoredTokens(file = TOKENS_FILE): Partial<DevTokens> {
  const stored: Partial<DevTokens> = {};
  if (!existsSync(file)) return stored;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) (stored as Record<string, string>)[m[1]] = m[2];
  }
  return stored;
}

/** pnpm 12 forwards a literal `--` to scripts, and wrangler ignores every flag after one. */
export function forwardedArgs(argv: string[]): string[] {
  return argv.filter((a) => a !== "--");
}
