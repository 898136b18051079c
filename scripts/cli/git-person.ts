import { execFileSync } from "node:child_process";

/** How long asking git who the person is may take before the pull request goes without the address. */
const GIT_VAR_TIMEOUT_MS = 3_000;

/**
 * The person at the terminal as git knows them (`git var GIT_AUTHOR_IDENT`:
 * GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL, else user.name and user.email), so a
 * pull request from the CLI credits them with a `Co-authored-by` trailer.
 * Null when git is missing or has no identity: the pull request names the
 * CLI's user id instead.
 */
export function gitPerson(env: NodeJS.ProcessEnv, cwd?: string): { name: string; email: string } | null {
  try {
    const ident = execFileSync("git", ["var", "GIT_AUTHOR_IDENT"], { env: { ...process.env, ...env }, cwd, timeout: GIT_VAR_TIMEOUT_MS, stdio: ["ignore", "pipe", "ignore"] }).toString();
    const m = /^(.+?) <([^<>\s]+@[^<>\s]+)> \d+ [+-]\d{4}\s*$/.exec(ident);
    return m ? { name: m[1].trim().slice(0, 100), email: m[2] } : null;
  } catch {
    return null;
  }
}
