import { rm } from "node:fs/promises";
import { FULL_BELOW_BYTES } from "../disk.ts";
import { mib, type Executor } from "../executor.ts";
import type { Owner } from "../workspace.ts";
import { fetchIntoMirror, git, GitStepError, mirrorOf, resolveBranch } from "./mirror.ts";

/**
 * A room's checkout at `repo/` in its workspace, in two halves:
 *
 * 1. on the host, the read token fetches the branch into the room's mirror
 *    (mirror.ts), outside the room's turn: nothing of the workspace is read;
 * 2. in the room's sandbox, in its turn like any command, git clones (or, when
 *    `repo/` is there, fetches) from that mirror, bound read-only, and
 *    `origin` is the tokenless URL. The clone is made beside `repo/` and
 *    renamed into place, so a failure leaves no half a `repo/`.
 *
 * The sandbox never gets the token: not in its environment, not in
 * `repo/.git/config`, and no process in it can see the host git's.
 */

/** Where the mirror appears inside the sandbox. */
export const MIRROR_INSIDE = "/run/duet-mirror";
/** Made beside `repo/` and renamed into place when whole. */
export const CLONE_TEMP = ".duet-checkout-tmp";
/** How long the clone inside the sandbox may take. */
export const CLONE_TIMEOUT_MS = 5 * 60_000;

export interface CheckoutRequest {
  sessionId: string;
  /** The repository's https URL, without credentials; `origin` in the checkout. */
  url: string;
  /** Null: the remote's default branch. */
  branch: string | null;
  /** A short read-only token, used on the host only. */
  token: string;
  /** `owner/name`, for the lines a person reads. */
  name: string;
}

export interface CheckoutResult {
  sha: string;
  branch: string;
  /** True when `repo/` was made now; false when an existing one was fetched into. */
  cloned: boolean;
  /** Said when an existing checkout was fetched but left where it was (local changes or commits). */
  note?: string;
}

/** `text` as one single-quoted shell word. */
export const shellWord = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The checkout step's exit code when the workspace has less room than the clone needs: the repository does not fit its quota. */
const EXIT_NO_ROOM = 4;
/** The checkout step's exit code when it would clone and was given no size to check: nothing was written, and the clone is measured first. */
const EXIT_UNMEASURED = 5;
/** The workspace's block size: each file of the checkout takes whole blocks. */
const BLOCK_BYTES = 4096;

/**
 * What a clone of `branch` takes in a workspace, in KiB, read from the
 * mirror on the host: its packed history, and each file of the branch's
 * tree in whole blocks (git's checkout writes them all). A little low for
 * folders and git's own files, which the free-space margin covers.
 */
export async function cloneKib(mirror: string, branch: string): Promise<number> {
  const counts = await git(["-C", mirror, "count-objects", "-v"], null);
  const packed = [...counts.matchAll(/^(?:size|size-pack): (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  const tree = await git(["-C", mirror, "ls-tree", "-r", "-l", "--full-tree", `refs/heads/${branch}`], null);
  let files = 0;
  for (const line of tree.split("\n")) {
    const size = /^\S+ blob \S+\s+(\d+)\t/.exec(line)?.[1];
    if (size) files += Math.ceil(Number(size) / BLOCK_BYTES) * (BLOCK_BYTES / 1024);
  }
  return packed + files;
}

/**
 * The step run inside the sandbox. An existing `repo/` is fetched into and
 * fast-forwarded only when it is on the branch with nothing changed: the
 * model's or a person's work there is never thrown away. Prints
 * `cloned|fetched|kept` then HEAD's sha, last. A clone is not tried when the
 * workspace has less than `neededKib` free: it exits EXIT_NO_ROOM; with
 * `neededKib` null it exits EXIT_UNMEASURED instead, before writing anything.
 */
export function checkoutScript(mirror: string, branch: string, url: string, neededKib: number | null): string {
  const m = shellWord(mirror);
  const b = shellWord(branch);
  return [
    "set -euf",
    "export GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0",
    // The mirror belongs to another uid on the host; git reads safe.directory from global config only.
    // /tmp is this step's own (a fresh tmpfs per command).
    `printf '[safe]\\n\\tdirectory = *\\n' > /tmp/duet-gitconfig`,
    "export GIT_CONFIG_GLOBAL=/tmp/duet-gitconfig",
    `G=git`,
    `if [ -e repo ] && [ ! -d repo/.git ]; then echo "repo/ is there and is not a git checkout: move it away, then sync again" >&2; exit 3; fi`,
    "if [ -d repo/.git ]; then",
    // Another repository's checkout (the room linked a new one) is the person's work: never fetched over.
    `  if [ "$($G -C repo remote get-url origin 2>/dev/null || true)" != ${shellWord(url)} ]; then echo "repo/ holds another repository (its origin is not ${url.replace(/["`$\\]/g, "")}): move it away, then sync again" >&2; exit 3; fi`,
    `  $G -C repo fetch --quiet --no-tags ${m} "+refs/heads/"${b}":refs/remotes/origin/"${b}`,
    `  if [ "$($G -C repo symbolic-ref -q --short HEAD || true)" = ${b} ] && [ -z "$($G -C repo status --porcelain)" ] && $G -C repo merge --quiet --ff-only "origin/"${b} >/dev/null 2>&1; then echo fetched; else echo kept; fi`,
    "else",
    ...(neededKib === null
      ? [`  exit ${EXIT_UNMEASURED}`]
      : [
          `  rm -rf ${CLONE_TEMP}`,
          `  trap 'rm -rf ${CLONE_TEMP}' EXIT`,
          `  if [ "$(df -k --output=avail . | tail -n 1)" -lt ${neededKib} ]; then exit ${EXIT_NO_ROOM}; fi`,
          `  $G clone --quiet --no-hardlinks --branch ${b} ${m} ${CLONE_TEMP}`,
          `  git -C ${CLONE_TEMP} remote set-url origin ${shellWord(url)}`,
          `  mv ${CLONE_TEMP} repo`,
          "  echo cloned",
        ]),
    "fi",
    "git -C repo rev-parse HEAD",
  ].join("\n");
}

/** What a clone of `branch` from `mirror` takes, in KiB: cloneKib, or a test's count of its calls. */
export type MeasureClone = (mirror: string, branch: string) => Promise<number>;

/** Runs the checkout for one room (see the top of this file). Throws GitStepError. */
export async function checkoutRepo(executor: Executor, owner: Owner | null, req: CheckoutRequest, signal?: AbortSignal, measure: MeasureClone = cloneKib): Promise<CheckoutResult> {
  const root = executor.config.root;
  const branch = await resolveBranch(req.url, req.token, req.branch, req.name);
  const mirror = await fetchIntoMirror(root, req.sessionId, owner, req.url, req.token, branch, req.name);
  const isolated = executor.isolation === "bwrap";
  const inside = isolated ? MIRROR_INSIDE : mirror;
  const step = (neededKib: number | null) => executor.execStep(req.sessionId, checkoutScript(inside, branch, req.url, neededKib), CLONE_TIMEOUT_MS, isolated ? [{ host: mirror, inside }] : [], signal);
  // Measuring reads the size of every file of the branch in the mirror, so only a step that clones
  // is measured: the first step is given no size, and only where repo/ is not a checkout yet does
  // it stop (EXIT_UNMEASURED) to be run again with one. Whether repo/ is a checkout is the sandbox's
  // to say (the host reads nothing of the workspace), so a clone pays that one short step (tens of
  // ms beside the clone's seconds), while measuring grows with the branch's files (about 30 ms at
  // 5,000, 150 ms at 50,000). A fetch into an existing repo/ is not measured: it brings only the
  // commits since the last sync, and the room's own filesystem bounds what it writes (past the
  // quota it fails as any command would).
  let run = await step(null);
  if (run.exitCode === EXIT_UNMEASURED) {
    // What the clone takes, and the margin under which the executor counts a workspace full (disk.ts).
    run = await step((await measure(mirror, branch)) + Math.ceil(Math.max(FULL_BELOW_BYTES, executor.config.workspaceMaxBytes / 100) / 1024));
  }
  const lines = run.stdout.trim().split("\n");
  const sha = lines.at(-1) ?? "";
  const how = lines.at(-2);
  if (run.exitCode === EXIT_NO_ROOM) {
    throw new GitStepError(413, "too_large", `${req.name} is too large for this room's workspace (${mib(executor.config.workspaceMaxBytes)}, SANDBOX_WORKSPACE_MAX_BYTES): its checkout did not fit, and nothing of it was kept`);
  }
  if (run.exitCode !== 0 || !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha)) {
    const why = run.stderr.trim().split("\n").filter((l) => !l.startsWith("[sandbox]"))[0] ?? `exit code ${run.exitCode}`;
    throw new GitStepError(run.exitCode === 3 ? 409 : 500, "checkout_failed", `the checkout of ${req.name} could not be made in repo/: ${why.slice(0, 300)}`);
  }
  const note = how === "kept" ? `repo/ has local changes or is not on ${branch}: fetched origin/${branch} and left repo/ as it was` : undefined;
  return { sha, branch, cloned: how === "cloned", ...(note ? { note } : {}) };
}

/** Forgets the room's mirror (its sandbox is being deleted). */
export async function removeMirror(root: string, sessionId: string): Promise<void> {
  await rm(mirrorOf(root, sessionId), { recursive: true, force: true });
}
