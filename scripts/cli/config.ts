import { join, resolve } from "node:path";
import { REPO_ROOT, readStoredTokens } from "../dev-env.ts";

/** Where the CLI finds the Worker and its token. Read once at start; never creates anything. */
export interface CliConfig {
  baseUrl: string;
  token: string;
  /** Where the token came from, for the error a wrong token gets. */
  tokenSource: string;
  /** The CLI's state folder (DUET_HOME, default .duet in the repository): what the last answer in each room left waiting. */
  home: string;
}

/** A missing or malformed setting: one line, exit 1. */
export class CliConfigError extends Error {}

/** The CLI's state folder: DUET_HOME, else `.duet` in the repository (where `pnpm dev` keeps its tokens and traces). */
export function cliHome(env: Record<string, string | undefined>): string {
  return resolve(env.DUET_HOME || join(REPO_ROOT, ".duet"));
}

export function loadCliConfig(env: Record<string, string | undefined>): CliConfig {
  const port = env.DUET_WORKER_PORT || "8787";
  const baseUrl = (env.DUET_WORKER_URL || `http://127.0.0.1:${port}`).trim();
  if (!/^https?:\/\/[^\s/]+/.test(baseUrl)) throw new CliConfigError(`DUET_WORKER_URL must be an http(s) URL (got "${baseUrl.slice(0, 60)}")`);
  const home = cliHome(env);
  if (env.DUET_API_TOKEN) return { baseUrl, token: env.DUET_API_TOKEN, tokenSource: "DUET_API_TOKEN", home };

  // Same place `pnpm dev` writes it (DUET_HOME moves it), but only read: a token made
  // up here would never match the Worker's.
  const file = join(home, "tokens.env");
  const token = readStoredTokens(file).DUET_API_TOKEN;
  if (!token) throw new CliConfigError(`no API token: set DUET_API_TOKEN, or start \`npm run dev\` once so it creates ${file}`);
  return { baseUrl, token, tokenSource: file, home };
}
