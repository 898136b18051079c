import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * What /proc says about a process: its CPU time (user + system, all threads)
 * and resident memory. Linux only, as the benchmarks are.
 */

/** Clock ticks per second for /proc/<pid>/stat times; 100 on every Linux this runs on (getconf CLK_TCK). */
const CLK_TCK = 100;

function stat(pid: number): string[] {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name is in parentheses and may contain spaces; fields after it are plain.
  return text.slice(text.lastIndexOf(")") + 2).split(" ");
}

/** User + system CPU time of `pid`, in milliseconds (10 ms resolution). */
export function cpuMs(pid: number): number {
  const f = stat(pid);
  // After the name: state(0) ppid(1) ... utime(11) stime(12).
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
}

/** Resident set size of `pid` in MiB (VmRSS), or VmHWM (the peak) when `peak` is set. */
export function rssMiB(pid: number, peak = false): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = new RegExp(`^${peak ? "VmHWM" : "VmRSS"}:\\s+(\\d+) kB`, "m").exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Pids of the direct children of `parent` whose command name is `comm`. */
export function childrenNamed(parent: number, comm: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, "utf8");
      const name = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
      if (name === comm && Number(stat(Number(entry))[1]) === parent) out.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** Inodes of the sockets listening on 127.0.0.1:`port` (from /proc/net/tcp). */
function listeningInodes(port: number): Set<string> {
  const out = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    // local_address is IP:PORT in hex; state 0A is LISTEN; field 9 is the inode.
    if (f[1]?.endsWith(`:${hexPort}`) && f[3] === "0A") out.add(f[9]);
  }
  return out;
}

/** Which of `pids` holds the socket listening on `port` (undefined when none does). */
export function listenerAmong(pids: number[], port: number): number | undefined {
  const inodes = listeningInodes(port);
  return pids.find((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
          return m !== null && inodes.has(m[1]);
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  });
}

/**
 * Bytes `pid` has caused to be written to storage (`write_bytes` in /proc/<pid>/io,
 * all threads): counted when a page is dirtied, so whole 4 KB pages, whether or not
 * they reach the disk before the next write to the same page.
 */
export function writeBytes(pid: number): number {
  const m = /^write_bytes:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"));
  if (!m) throw new Error(`no write_bytes in /proc/${pid}/io`);
  return Number(m[1]);
}
