import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
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
 * Makes DUET_HOME (or `dir`) a folder other local users can neither list nor read:
 * 0700. Run as root, the local executor starts bubblewrap as SANDBOX_HOST_UID, which
 * must pass through it to the default `sandboxes/`, so then 0711 (enter, not list);
 * what it holds is private itself (tokens 0600, `state/` 0700, each workspace 0700).
 * Set on every start: mkdir's mode applies to a new folder only.
 */
export function ensureDuetDir(dir = DUET_DIR): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, process.getuid?.() === 0 ? 0o711 : 0o700);
  return dir;
}

/** A folder of ours only its owner may enter (0700), made if missing: the Worker's stored state. */
export function ensurePrivateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}

/**
 * The tokens the local Worker, executor, bots and CLI share. Created on first
 * run (random), read afterwards; variables already set in the environment win,
 * so an operator can pin them. The file is 0600 whatever mode it was given: made
 * so, and an existing one is narrowed before anything is read from or written to it.
 */
export function devTokens(file = TOKENS_FILE, env: Record<string, string | undefined> = process.env): DevTokens {
  ensureDuetDir(dirname(file));
  if (existsSync(file)) chmodSync(file, 0o600);
  const stored = readStoredTokens(file);
  const tokens: DevTokens = {
    DUET_API_TOKEN: env.DUET_API_TOKEN || stored.DUET_API_TOKEN || randomBytes(24).toString("hex"),
    SANDBOX_TOKEN: env.SANDBOX_TOKEN || stored.SANDBOX_TOKEN || randomBytes(24).toString("hex"),
  };
  if (stored.DUET_API_TOKEN !== tokens.DUET_API_TOKEN || stored.SANDBOX_TOKEN !== tokens.SANDBOX_TOKEN) {
    writeFileSync(file, `DUET_API_TOKEN=${tokens.DUET_API_TOKEN}\nSANDBOX_TOKEN=${tokens.SANDBOX_TOKEN}\n`, { mode: 0o600 });
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
