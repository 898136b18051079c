/**
 * SIGINT and SIGTERM for a process whose stop must finish its cleanup (stop its
 * children's groups, unmount the rooms' disks) before it exits.
 *
 * One request to stop often arrives as several signals at once: a terminal's Ctrl-C
 * reaches every process of the foreground group, and npm and tsx relay it to their
 * child again; a service manager's SIGTERM to the group does the same. So every
 * signal within `sameRequestMs` of the first is that request again and is ignored,
 * and only a later one (a person pressing Ctrl-C again) gives up on the cleanup.
 */
export function onStopSignals(
  stop: (signal: NodeJS.Signals) => void,
  force: (signal: NodeJS.Signals) => void,
  sameRequestMs = SAME_REQUEST_MS,
): () => void {
  let first: number | undefined;
  const handle = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (first === undefined) {
      first = now;
      stop(signal);
    } else if (now - first > sameRequestMs) force(signal);
  };
  process.on("SIGINT", handle);
  process.on("SIGTERM", handle);
  return () => {
    process.off("SIGINT", handle);
    process.off("SIGTERM", handle);
  };
}

/** Relayed copies usually arrive within milliseconds, but seconds late on a loaded machine; a second Ctrl-C after this gives up. */
const SAME_REQUEST_MS = 5_000;

/**
 * Writes to stdout or stderr after the reader went away (`npm run dev | tee log`,
 * then Ctrl-C ends tee first) fail with EPIPE, which Node reports as an error event
 * that, unheard, kills the process before it stops what it started. Calls
 * `onClosed` once instead; `closed()` says whether output still goes anywhere.
 */
export function onOutputClosed(onClosed: () => void): { closed(): boolean } {
  let closed = false;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", () => {
      if (closed) return;
      closed = true;
      onClosed();
    });
  }
  return { closed: () => closed };
}
