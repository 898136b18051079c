import { readFileSync } from "node:fs";
import { portFree } from "../../scripts/dev/ready.ts";

/**
 * Ports for processes a test starts by number (`pnpm dev`, a Worker restarted on its old
 * port). Listening on port 0 hands out a port from the kernel's ephemeral range, the same
 * range every outgoing connection of the parallel test files takes its local port from, so
 * such a port can be taken between the check and the use (CI saw exactly that). Ports are
 * drawn below that range instead, where only a process asking for the number can land.
 */
const LOWEST = 10_000;

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST + 1000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

const bindable = (port: number): Promise<boolean> => portFree(port).then(() => true, () => false);

/** A port below the ephemeral range that nothing listens on right now. */
export async function quietPort(): Promise<number> {
  const high = ephemeralLow();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (high - LOWEST));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${LOWEST} and ${high} after 100 tries`);
}
