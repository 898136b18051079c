import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Executor } from "../executor.ts";
import { shellWord } from "./checkout.ts";
import { git, GitStepError, gitWords, mirrorOf, mirrorsDir, refusedByHost } from "./mirror.ts";

/**
 * Pushes the change in a room's checkout to a `duet/…` branch, in three
 * steps that keep the token and the workspace apart:
 *
 * 1. in the room's sandbox, in its turn like any command, the working tree is
 *    staged into a scratch index (the person's index is not touched), made a
 *    commit on `parent`, and written out as a git bundle on stdout (base64);
 * 2. on the host, git unbundles it (plain data) into the room's mirror,
 *    never reading the workspace's `.git`;
 * 3. the host's git pushes only `refs/heads/duet/…` with the write token in its
 *    environment: never the base branch, never forced, so a branch that moved
 *    elsewhere is refused, not overwritten.
 */

/** How long the commit and bundle inside the sandbox may take. */
const BUNDLE_TIMEOUT_MS = 2 * 60_000;
/** A temporary ref the bundle names, removed with the step. */
const BUNDLE_REF = "refs/duet/pr-bundle";

export interface PushRequest {
  sessionId: string;
  url: string;
  /** A contents:write token for the one repository, used on the host only. */
  token: string;
  repo: string;
  /** `duet/…`. */
  branch: string;
  /** The commit the checkout was made at: the diff is against it. */
  baseSha: string;
  /** The commit the new one goes on: baseSha, or the branch's last pushed head. */
  parent: string;
  message: string;
  author: { name: string; email: string };
  /** The commit's date (Unix seconds): the same proposal pushed again makes the same commit, so a retry after a crash is a no-op push, not a refused one. */
  date: number;
}

/** The step inside the sandbox: prints the commit's sha, then the bundle in base64, or exits 9 when nothing changed. */
export function bundleScript(req: Pick<PushRequest, "baseSha" | "parent" | "message" | "author" | "date">): string {
  const lines = [
    "set -eu",
    "cd ~",
    `[ -d repo/.git ] || { echo "there is no checkout at repo/" >&2; exit 4; }`,
    "export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_TERMINAL_PROMPT=0 GIT_INDEX_FILE=/tmp/duet-pr-index",
    `export GIT_AUTHOR_NAME=${shellWord(req.author.name)} GIT_AUTHOR_EMAIL=${shellWord(req.author.email)} GIT_COMMITTER_NAME=${shellWord(req.author.name)} GIT_COMMITTER_EMAIL=${shellWord(req.author.email)}`,
    `export GIT_AUTHOR_DATE="@${Math.floor(req.date)} +0000" GIT_COMMITTER_DATE="@${Math.floor(req.date)} +0000"`,
    `git -C repo read-tree ${shellWord(req.baseSha)}`,
    "git -C repo add -A",
    "T=$(git -C repo write-tree)",
    `[ "$T" != "$(git -C repo rev-parse ${shellWord(req.baseSha)}^{tree})" ] || { echo "nothing changed in repo/" >&2; exit 9; }`,
    `C=$(printf '%s\\n' ${shellWord(req.message)} | git -C repo commit-tree "$T" -p ${shellWord(req.parent)})`,
    `git -C repo update-ref ${BUNDLE_REF} "$C"`,
    `trap 'git -C repo update-ref -d ${BUNDLE_REF}' EXIT`,
    'echo "$C"',
    `git -C repo bundle create --quiet - ${BUNDLE_REF} --not ${shellWord(req.baseSha)} | base64 -w0`,
  ];
  return `(\n${lines.join("\n")}\n)`;
}

/** Makes the commit in the sandbox and pushes it to `req.branch`; answers the commit's sha. Throws GitStepError. */
export async function pushChange(executor: Executor, req: PushRequest, signal?: AbortSignal): Promise<{ sha: string }> {
  const mirror = mirrorOf(executor.config.root, req.sessionId);
  const run = await executor.execStep(req.sessionId, bundleScript(req), BUNDLE_TIMEOUT_MS, [], signal);
  const [sha, bundle] = run.stdout.trim().split("\n");
  if (run.exitCode === 9) throw new GitStepError(409, "nothing_changed", `nothing changed in repo/: there is nothing to push`);
  if (run.exitCode !== 0 || run.truncated || !/^[0-9a-f]{40}$/.test(sha ?? "") || !bundle) {
    const why = run.truncated ? "the change is too large to hand over" : (run.stderr.trim().split("\n").filter((l) => !l.startsWith("[sandbox]"))[0] ?? `exit code ${run.exitCode}`);
    throw new GitStepError(run.exitCode === 4 ? 404 : 500, "push_failed", `the commit could not be made in repo/: ${why.slice(0, 300)}`);
  }
  const dir = await mkdtemp(join(mirrorsDir(executor.config.root), ".bundle-"));
  try {
    const file = join(dir, "change.bundle");
    await writeFile(file, Buffer.from(bundle, "base64"));
    // Only the bundle's objects go into the mirror (no transport, no ref); the branch itself is pushed without force.
    await git(["-C", mirror, "bundle", "unbundle", file], null).catch((err: Error) => {
      throw new GitStepError(500, "push_failed", `the change could not be read back: ${err.message.split("\n")[0].slice(0, 300)}`);
    });
    await git(["-C", mirror, "push", "--quiet", "--no-verify", "--", req.url, `${sha}:refs/heads/${req.branch}`], req.token).catch((err: Error) => {
      const said = err.message;
      const words = gitWords(said);
      if (/rejected|non-fast-forward|fetch first/i.test(words)) {
        throw new GitStepError(409, "push_failed", `${req.branch} in ${req.repo} has commits Duet does not have: it was not overwritten`);
      }
      if (refusedByHost(words)) throw new GitStepError(502, "refused", `the git host refused Duet's push to ${req.repo}`);
      throw new GitStepError(502, "push_failed", `git could not push to ${req.repo}: ${(said.split("\n").find((l) => l.startsWith("fatal:") || l.startsWith("error:")) ?? said.split("\n")[0]).slice(0, 300)}`);
    });
    return { sha };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
