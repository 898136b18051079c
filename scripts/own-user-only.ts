import { readFileSync } from "node:fs";
import { isIPv4, Server, type Socket } from "node:net";

/**
 * Makes every TCP server of this process answer only processes of this process's own
 * user; another user's connection is closed before a byte is read.
 *
 * Why: wrangler's dev server runs miniflare in this process, and miniflare serves a
 * "loopback" HTTP server on a random 127.0.0.1 port for workerd's calls back into
 * Node (log lines, errors, temporary files), with no authentication and no option to
 * turn it off. Any local user could write lines into the dev log that read as the
 * Worker's (`POST /core/log`), list the rooms' storage files (`/core/do-storage/`),
 * or write a file of their choosing wherever this user may write
 * (`POST /core/store-temp-file?extension=x/../../…`: as root, anywhere). workerd runs
 * as this user, so its calls still pass; the Worker's own port is workerd's, not ours,
 * and keeps answering anyone with the API token.
 *
 * The peer's user is read from /proc/net/tcp (or tcp6), where the kernel lists each
 * socket with its owner: the row whose local end is the peer's. No row (the peer gave
 * up meanwhile, or another network namespace): refused.
 */
export function ownUserOnly(): void {
  type Emit = (this: Server, event: string | symbol, ...args: unknown[]) => boolean;
  const emit = Server.prototype.emit as Emit;
  Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "connection" && !fromOwnUser(args[0] as Socket)) {
      (args[0] as Socket).destroy();
      return false;
    }
    return emit.call(this, event, ...args);
  };
}

/** Whether the process at the other end of `socket` runs as our effective uid. */
export function fromOwnUser(socket: Socket): boolean {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (!remoteAddress || !remotePort || !localAddress || !localPort) return false;
  // A dual-stack server sees an IPv4 client as ::ffff:a.b.c.d; the client's own socket may be
  // listed in either table, so both spellings are looked for.
  const ends = [
    [`${procAddress(remoteAddress)}:${procPort(remotePort)}`, `${procAddress(localAddress)}:${procPort(localPort)}`],
    [`${procAddress(unmapped(remoteAddress))}:${procPort(remotePort)}`, `${procAddress(unmapped(localAddress))}:${procPort(localPort)}`],
  ];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let rows: string;
    try {
      rows = readFileSync(table, "utf8");
    } catch {
      continue; // no IPv6 here
    }
    for (const line of rows.split("\n").slice(1)) {
      // Columns: sl, local ADDR:PORT, remote ADDR:PORT, state, queues, timer, retransmits, uid, ...
      const f = line.trim().split(/\s+/);
      if (ends.some(([peer, us]) => f[1] === peer && f[2] === us)) return Number(f[7]) === process.geteuid!();
    }
  }
  return false;
}

/** `::ffff:127.0.0.1` as `127.0.0.1`; any other address as it is. */
const unmapped = (address: string) => /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;

const procPort = (port: number) => port.toString(16).toUpperCase().padStart(4, "0");

/** An address as /proc/net/tcp{,6} writes it: each 32-bit word in hex, in the host's (little-endian) byte order. */
function procAddress(address: string): string {
  const bytes = isIPv4(address) ? address.split(".").map(Number) : ipv6Bytes(address);
  let out = "";
  for (let i = 0; i < bytes.length; i += 4) {
    out += bytes
      .slice(i, i + 4)
      .reverse()
      .map((b) => b.toString(16).toUpperCase().padStart(2, "0"))
      .join("");
  }
  return out;
}

/** The 16 bytes of an IPv6 address (`::` and a trailing dotted IPv4, as in `::ffff:127.0.0.1`, included). */
function ipv6Bytes(address: string): number[] {
  let text = address.split("%")[0]!;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4) {
    const [a, b, c, d] = v4.split(".").map(Number) as [number, number, number, number];
    text = text.slice(0, -v4.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const words = (s: string | undefined) => (s ? s.split(":").map((w) => parseInt(w, 16)) : []);
  const front = words(head);
  const back = words(tail);
  const all = tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return all.flatMap((w) => [w >> 8, w & 0xff]);
}
