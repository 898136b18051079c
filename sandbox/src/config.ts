import { existsSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, DEFAULT_FILE_MAX_BYTES, DEFAULT_WORKSPACE_MAX_BYTES, intVar, networkPolicyOf, optionalText, parseEnv, sandboxNetworkFields, type NetworkPolicy } from "@duet/shared";
import { z } from "zod";

/**
 * The executor's configuration, read once at start from the environment (or handed
 * to `startExecutor` by tests). A missing or malformed variable stops start-up with
 * one line naming it.
 */

/**
 * Workspaces live in `<repo>/.duet/sandboxes` by default: `.duet/` is git-ignored,
 * and a room's files survive an executor restart, as a container's would survive a
 * Worker deploy. The sandbox itself never sees the repo: only its own workspace is
 * mounted.
 */
export const DEFAULT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../.duet/sandboxes");
/** Where `pnpm dev` keeps its tokens (DUET_HOME moves it, as for `pnpm dev`). */
export const duetHome = (env: Record<string, string | undefined>) => resolve(env.DUET_HOME || join(DEFAULT_ROOT, ".."));
export const DEFAULT_PORT = 8788;
/**
 * Commands running at once, over all rooms; the rest wait in line (queue.ts). Eight,
 * so one workspace's half (four) leaves four for every other workspace. Each room
 * runs one command at a time, and where cgroups hold it gets SANDBOX_MAX_CPUS (one)
 * and the kernel shares the CPUs between the running rooms, so on a 2-core machine
 * eight rooms make each command slower rather than the machine unresponsive; the cap
 * bounds the memory the rooms can hold together (eight times SANDBOX_MAX_MEMORY_MB).
 */
export const DEFAULT_MAX_CONCURRENT = 8;
/** Commands waiting for a slot before the executor answers 503 (Retry-After), which the Worker waits out and asks again. */
export const DEFAULT_MAX_WAITING = 256;
/** Per stream (stdout, stderr); well above the Worker's own 64 KiB cap, so it decides what to show. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** Processes (threads count too) per command: enough for make -j or a test runner, not for a fork bomb. */
export const DEFAULT_MAX_PROCS = 256;
/** Writable memory per process (RLIMIT_DATA), in MiB. Not a total: see README. */
export const DEFAULT_MAX_MEMORY_MB = 1024;
/**
 * When the executor runs as root, bubblewrap is started as this host uid/gid: the
 * kernel does not enforce RLIMIT_NPROC for processes that map to host root, so a
 * fork bomb would only be stopped by the timeout. An id no login account has (1000
 * usually is someone), so no host user owns the rooms' files or their processes.
 */
export const DEFAULT_HOST_UID = 61_000;
/** CPUs' worth of time a room's commands get together (a cgroup's CPU quota), where cgroups are enforced. */
export const DEFAULT_MAX_CPUS = 1;
/** Smallest workspace quota: an ext4 filesystem needs a few MiB for itself. */
export const MIN_WORKSPACE_MAX_BYTES = 8 * 1024 * 1024;

const schema = z.object({
  SANDBOX_PORT: intVar("SANDBOX_PORT", DEFAULT_PORT, 0, 65_535),
  SANDBOX_HOST: optionalText.transform((v) => v ?? "127.0.0.1"),
  SANDBOX_TOKEN: optionalText,
  SANDBOX_ROOT: optionalText.transform((v) => resolve(v ?? DEFAULT_ROOT)),
  SANDBOX_ISOLATION: z
    .enum(["bwrap", "none"], { error: "SANDBOX_ISOLATION must be bwrap or none" })
    .optional()
    .transform((v) => v ?? "bwrap"),
  SANDBOX_MAX_CONCURRENT: intVar("SANDBOX_MAX_CONCURRENT", DEFAULT_MAX_CONCURRENT, 1, 64),
  SANDBOX_MAX_WAITING: intVar("SANDBOX_MAX_WAITING", DEFAULT_MAX_WAITING, 0, 65_536),
  SANDBOX_MAX_OUTPUT_BYTES: intVar("SANDBOX_MAX_OUTPUT_BYTES", DEFAULT_MAX_OUTPUT_BYTES, 1024, 64 * 1024 * 1024),
  SANDBOX_MAX_PROCS: intVar("SANDBOX_MAX_PROCS", DEFAULT_MAX_PROCS, 8, 65_536),
  SANDBOX_MAX_MEMORY_MB: intVar("SANDBOX_MAX_MEMORY_MB", DEFAULT_MAX_MEMORY_MB, 64, 1024 * 1024),
  SANDBOX_MAX_CPUS: intVar("SANDBOX_MAX_CPUS", DEFAULT_MAX_CPUS, 1, 1024),
  SANDBOX_WORKSPACE_MAX_BYTES: intVar("SANDBOX_WORKSPACE_MAX_BYTES", DEFAULT_WORKSPACE_MAX_BYTES, MIN_WORKSPACE_MAX_BYTES, 2 ** 50),
  SANDBOX_HOST_UID: intVar("SANDBOX_HOST_UID", DEFAULT_HOST_UID, 1, 2 ** 31 - 2),
  SANDBOX_BWRAP: optionalText,
  DUET_FILE_MAX_BYTES: intVar("DUET_FILE_MAX_BYTES", DEFAULT_FILE_MAX_BYTES, 1, 2 ** 40),
  ...sandboxNetworkFields,
});

export interface ExecutorConfig {
  port: number;
  host: string;
  token?: string;
  root: string;
  isolation: "bwrap" | "none";
  maxConcurrent: number;
  /** Commands that may wait for a slot; past it, 503 with Retry-After. */
  maxWaiting: number;
  maxOutputBytes: number;
  maxProcs: number;
  /** Memory per room where cgroups hold (else per process, RLIMIT_DATA). */
  maxMemoryMb: number;
  /** CPUs per room, where cgroups hold. */
  maxCpus: number;
  /** A room's workspace size (SANDBOX_WORKSPACE_MAX_BYTES): its own filesystem where the host allows, and the files API's limit. */
  workspaceMaxBytes: number;
  /** Host uid/gid bubblewrap drops to when the executor runs as root. */
  hostUid: number;
  /** Path of the bwrap binary (found on PATH by default). */
  bwrapPath: string;
  /** One file in or out through the files API (DUET_FILE_MAX_BYTES). */
  fileMaxBytes: number;
  /** Where commands may connect (SANDBOX_NETWORK and its host lists); bubblewrap honours none and all only. */
  network: NetworkPolicy;
}

export { ConfigError };

/** Where `bwrap` is on PATH, else the Debian location (the start-up check names the package if absent). */
function findBwrap(path = process.env.PATH ?? ""): string {
  for (const dir of path.split(delimiter)) {
    if (dir && existsSync(join(dir, "bwrap"))) return join(dir, "bwrap");
  }
  return "/usr/bin/bwrap";
}

export function loadConfig(env: Record<string, string | undefined> = process.env): ExecutorConfig {
  const c = parseEnv(schema, env, "sandbox executor misconfigured");
  return {
    port: c.SANDBOX_PORT,
    host: c.SANDBOX_HOST,
    token: c.SANDBOX_TOKEN,
    root: c.SANDBOX_ROOT,
    isolation: c.SANDBOX_ISOLATION,
    maxConcurrent: c.SANDBOX_MAX_CONCURRENT,
    maxWaiting: c.SANDBOX_MAX_WAITING,
    maxOutputBytes: c.SANDBOX_MAX_OUTPUT_BYTES,
    maxProcs: c.SANDBOX_MAX_PROCS,
    maxMemoryMb: c.SANDBOX_MAX_MEMORY_MB,
    maxCpus: c.SANDBOX_MAX_CPUS,
    workspaceMaxBytes: c.SANDBOX_WORKSPACE_MAX_BYTES,
    hostUid: c.SANDBOX_HOST_UID,
    bwrapPath: c.SANDBOX_BWRAP ?? findBwrap(),
    network: networkPolicyOf(c),
    fileMaxBytes: c.DUET_FILE_MAX_BYTES,
  };
}
