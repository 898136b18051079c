import { existsSync, lstatSync, readlinkSync } from "node:fs";

/**
 * The bubblewrap command line for one sandboxed command. Pure: the host's layout is
 * probed once (`probeHostLayout`) and passed in, so the argv can be checked in a test.
 *
 * What the sandbox sees: /usr and the library/binary dirs read-only, a handful of
 * /etc files a shell and common tools need, generated passwd/group/hosts, a fresh
 * /proc, /dev and /tmp, and its own workspace at /workspace. Nothing else of the
 * host: not /root, /home, /work, the repo, the host's /proc or its environment.
 */

/** Where the room's files appear inside the sandbox; also HOME and the working directory. */
export const SANDBOX_WORKSPACE = "/workspace";
/** The unprivileged identity inside the sandbox (names come from the generated /etc/passwd). */
export const SANDBOX_UID = 1000;
export const SANDBOX_GID = 1000;
/** /tmp and /dev/shm are memory-backed; sizing them stops `cat /dev/zero > /tmp/x` eating host RAM. */
export const TMP_BYTES = 256 * 1024 * 1024;
export const SHM_BYTES = 64 * 1024 * 1024;
/** Largest single file a command may write (RLIMIT_FSIZE); the workspace has no total quota. */
export const FILE_MAX_BYTES = 1024 * 1024 * 1024;
/** Open files per process. */
export const NOFILE_MAX = 4096;

/** Host /etc pieces bound read-only when present (`--ro-bind-try`): dynamic loader, TLS roots, shell rc, locale bits. */
export const ETC_PIECES = [
  "alternatives",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "nsswitch.conf",
  "ssl/certs",
  "ca-certificates",
  "ca-certificates.conf",
  "bash.bashrc",
  "profile",
  "inputrc",
  "mime.types",
  "magic",
];

/** Generated files in `<root>/etc` that replace the host's (which list the host's users). */
export const GENERATED_ETC = ["passwd", "group", "hosts", "hostname"];
/** Generated too, bound only under SANDBOX_NETWORK=all. */
export const GENERATED_RESOLV_CONF = "resolv.conf";

/** Top-level entries that are directories on older layouts and symlinks into /usr on merged-/usr ones. */
const TOP_LEVEL = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

export interface HostLayout {
  /** `/bin` → `usr/bin` and the like, recreated as symlinks. */
  links: Array<{ path: string; target: string }>;
  /** Top-level directories bound read-only as they are. */
  dirs: string[];
  /** The shell commands run under: bash when the host has it (as in the Cloudflare sandbox), else sh. */
  shell: string;
  /** `prlimit` (util-linux), used inside the sandbox to set per-command limits; null when absent. */
  prlimit: string | null;
}

export function probeHostLayout(): HostLayout {
  const links: HostLayout["links"] = [];
  const dirs: string[] = [];
  for (const name of TOP_LEVEL) {
    const path = `/${name}`;
    let st;
    try {
      st = lstatSync(path);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) links.push({ path, target: readlinkSync(path) });
    else if (st.isDirectory()) dirs.push(path);
  }
  const shell = existsSync("/usr/bin/bash") || existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
  const prlimit = ["/usr/bin/prlimit", "/bin/prlimit"].find((p) => existsSync(p)) ?? null;
  return { links, dirs, shell, prlimit };
}

export interface Limits {
  maxProcs: number;
  maxMemoryMb: number;
}

/**
 * The argv run inside the sandbox: the limits wrapper (when available) and the shell.
 * RLIMIT_NPROC is counted per uid inside the sandbox's own user namespace, so one
 * room's fork bomb does not starve another's commands.
 */
export function innerCommand(layout: HostLayout, limits: Limits, command: string): string[] {
  const shell = [layout.shell, "-c", command];
  if (!layout.prlimit) return shell;
  return [
    layout.prlimit,
    `--nproc=${limits.maxProcs}`,
    // RLIMIT_DATA rather than RLIMIT_AS: runtimes (V8, Go) reserve huge address
    // ranges they never touch; DATA counts only writable private memory.
    `--data=${limits.maxMemoryMb * 1024 * 1024}`,
    `--fsize=${FILE_MAX_BYTES}`,
    `--nofile=${NOFILE_MAX}`,
    "--core=0",
    "--",
    ...shell,
  ];
}

export interface SandboxSpec {
  /** Host directory of the room's workspace. */
  workspace: string;
  /** Host directory holding the generated /etc files. */
  etcDir: string;
  /** What to run inside (see `innerCommand`). */
  argv: string[];
  /** Keep the network namespace bwrap starts in (SANDBOX_NETWORK=all: a private one); otherwise the sandbox has none. */
  shareNet?: boolean;
  /** Host folders bound read-only at the given place inside (Duet's own steps: a repository mirror). */
  readOnly?: Array<{ host: string; inside: string }>;
}

export function bwrapArgs(spec: SandboxSpec, layout: HostLayout): string[] {
  const args: string[] = [
    // Every namespace: no network at all (not even the host's loopback) unless
    // SANDBOX_NETWORK=all shares the private one it was started in, private
    // PID/IPC/UTS/cgroup views, and a user namespace in which we are uid 1000 with
    // no capabilities and may not create further user namespaces.
    "--unshare-all",
    // SANDBOX_NETWORK=all: the private network namespace bwrap was started in (see
    // netns.ts; never the host's), and a resolver that points at its DNS forwarder.
    ...(spec.shareNet ? ["--share-net", "--ro-bind", `${spec.etcDir}/resolv.conf`, "/etc/resolv.conf"] : []),
    "--unshare-user",
    "--disable-userns",
    "--uid", String(SANDBOX_UID),
    "--gid", String(SANDBOX_GID),
    "--cap-drop", "ALL",
    "--hostname", "sandbox",
    // Killing bwrap (the executor's timeout does) kills everything inside; a new
    // session stops TIOCSTI-style injection into a controlling terminal.
    "--die-with-parent",
    "--new-session",
    "--ro-bind", "/usr", "/usr",
  ];
  for (const { path, target } of layout.links) args.push("--symlink", target, path);
  for (const dir of layout.dirs) args.push("--ro-bind", dir, dir);
  for (const piece of ETC_PIECES) args.push("--ro-bind-try", `/etc/${piece}`, `/etc/${piece}`);
  for (const name of GENERATED_ETC) args.push("--ro-bind", `${spec.etcDir}/${name}`, `/etc/${name}`);
  args.push(
    "--proc", "/proc",
    "--dev", "/dev",
    "--size", String(SHM_BYTES), "--tmpfs", "/dev/shm",
    "--size", String(TMP_BYTES), "--tmpfs", "/tmp",
    "--bind", spec.workspace, SANDBOX_WORKSPACE,
    ...(spec.readOnly ?? []).flatMap(({ host, inside }) => ["--ro-bind", host, inside]),
    // The root and /dev are tmpfs mounts bwrap made, unsized; read-only so writes
    // outside /workspace, /tmp and /dev/shm fail instead of filling host memory.
    // (Device nodes like /dev/null stay writable: they are their own mounts.)
    "--remount-ro", "/dev",
    "--remount-ro", "/",
    "--chdir", SANDBOX_WORKSPACE,
    "--clearenv",
    ...sandboxEnvArgs(layout.shell),
    "--",
    ...spec.argv,
  );
  return args;
}

/** The whole environment inside: nothing from the host, so no tokens leak into commands. */
export function sandboxEnv(home: string, shell: string): Record<string, string> {
  return {
    PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    HOME: home,
    USER: "sandbox",
    LOGNAME: "sandbox",
    SHELL: shell,
    LANG: "C.UTF-8",
    TERM: "dumb",
    TMPDIR: "/tmp",
  };
}

function sandboxEnvArgs(shell: string): string[] {
  return Object.entries(sandboxEnv(SANDBOX_WORKSPACE, shell)).flatMap(([k, v]) => ["--setenv", k, v]);
}
