/**
 * Lines of wrangler's and workerd's output that say nothing to a person running
 * `pnpm dev`, dropped before they reach the terminal:
 *
 * - the bindings table wrangler prints at every start (a heading, a header row and a
 *   row per Durable Object and variable), which pushes Duet's own summary off screen;
 * - workerd's "Broken pipe" / "disconnected" error for a client that hung up before
 *   its answer was written (a readiness probe given up on), with its `stack:` line:
 *   nothing failed, yet it reads like a crash.
 *
 * Only these: any other line, errors above all, is shown as it comes.
 */

const ANSI = /\x1b\[[0-9;]*m/g;
const TABLE_HEADING = /^Your Worker has access to the following bindings:$/;
/** Header, rows (`env.NAME (...)  Type  local`) and the box-drawing borders newer wranglers use. */
const TABLE_LINE = /^(Binding\s+Resource\b|env\.[A-Za-z_][A-Za-z0-9_]*\b|[┌├└│─╭╰┬┴┼]|-{3,})/;
/** workerd's log line for a peer that went away mid-answer (kj/async-io-unix.c++, kj/compat/http.c++). */
const HUNG_UP = /\bkj\/[\w./-]+\.c\+\+:\d+: disconnected\b|\bkj\/[\w./-]+\.c\+\+:\d+:.*\b(Broken pipe|Connection reset by peer)\b/;
const STACK = /^(stack:|\s+at\s|\s*0x[0-9a-f]+\b|\/\S+@0x[0-9a-f]+)/;

/** A fresh filter for one Worker's output: returns true for a line to drop. It keeps state (inside the table, after a hang-up). */
export function workerNoise(): (line: string) => boolean {
  let inTable = false;
  let afterHangUp = false;
  return (raw) => {
    const line = raw.replace(ANSI, "").trim();
    if (TABLE_HEADING.test(line)) return (inTable = true);
    if (inTable) {
      if (TABLE_LINE.test(line)) return true;
      inTable = false;
    }
    if (HUNG_UP.test(line)) return (afterHangUp = true);
    if (afterHangUp) {
      if (STACK.test(line)) return true;
      afterHangUp = false;
    }
    return false;
  };
}
