import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Git on the test's side, with no user configuration and a fixed author. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: "/nonexistent",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "Ada",
    GIT_AUTHOR_EMAIL: "ada@example.com",
    GIT_COMMITTER_NAME: "Ada",
    GIT_COMMITTER_EMAIL: "ada@example.com",
  };
  const { stdout } = await run("git", args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

/**
 * Bare repositories as a git host keeps them (`<root>/owner/name.git`),
 * filled from a scratch working copy: `files` per commit on `branch`.
 */
export class BareRepos {
  readonly root = mkdtempSync(join(tmpdir(), "duet-git-host-"));

  /** Makes `owner/name` with one commit per entry of `commits` on `branch`; resolves with the last commit's sha. */
  async create(fullName: string, commits: Array<Record<string, string>>, branch = "main"): Promise<string> {
    const bare = join(this.root, `${fullName}.git`);
    mkdirSync(dirname(bare), { recursive: true });
    await git(this.root, "init", "--quiet", "--bare", "--initial-branch", branch, bare);
    return this.commit(fullName, commits, branch);
  }

  /** Adds commits on `branch` (made from the branch's tip, or from nothing when it is new) and pushes them; the new tip's sha. */
  async commit(fullName: string, commits: Array<Record<string, string>>, branch = "main", from?: string): Promise<string> {
    const work = mkdtempSync(join(tmpdir(), "duet-git-work-"));
    const bare = join(this.root, `${fullName}.git`);
    try {
      await git(work, "init", "--quiet", "--initial-branch", branch);
      const start = from ?? branch;
      const has = await git(bare, "rev-parse", "--verify", "--quiet", `refs/heads/${start}`).catch(() => "");
      if (has) {
        await git(work, "fetch", "--quiet", bare, `refs/heads/${start}`);
        await git(work, "reset", "--quiet", "--hard", "FETCH_HEAD");
      }
      for (const [i, files] of commits.entries()) {
        for (const [path, text] of Object.entries(files)) {
          mkdirSync(dirname(join(work, path)), { recursive: true });
          writeFileSync(join(work, path), text);
        }
        await git(work, "add", "-A");
        await git(work, "commit", "--quiet", "-m", `change ${i + 1}`);
      }
      await git(work, "push", "--quiet", bare, `HEAD:refs/heads/${branch}`);
      return await git(work, "rev-parse", "HEAD");
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  /** The branch's tip in the bare repository. */
  tip(fullName: string, branch = "main"): Promise<string> {
    return git(join(this.root, `${fullName}.git`), "rev-parse", `refs/heads/${branch}`);
  }

  /** The branches the bare repository holds. */
  async branches(fullName: string): Promise<string[]> {
    const out = await git(join(this.root, `${fullName}.git`), "for-each-ref", "--format=%(refname:short)", "refs/heads");
    return out ? out.split("\n") : [];
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
