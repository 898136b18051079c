import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../scripts/duet-cli.ts";
import { startTraceCollector, TRACES_FILE, type TraceCollector } from "../../scripts/dev/trace-store.ts";
import { sleep } from "../fakes/http.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { fakeTerminal } from "./fake-terminal.ts";

/**
 * `duet trace` after local turns: the real Worker exports to the collector
 * `pnpm dev` runs (scripts/dev/trace-store.ts), which keeps the spans in
 * DUET_HOME/traces.jsonl; the CLI draws a turn from there as a waterfall, and
 * finds a failed turn by the `ref` its error line ends with.
 */

let stack: Stack;
let collector: TraceCollector;
let home: string;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "duet-trace-"));
  collector = await startTraceCollector(join(home, TRACES_FILE));
  stack = await startStack({ vars: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } });
});
afterAll(async () => {
  await stack?.stop();
  await collector?.close();
  rmSync(home, { recursive: true, force: true });
});

function terminal() {
  const t = fakeTerminal(stack);
  t.io.env.DUET_HOME = home;
  return t;
}

/** Waits until the kept file holds a span of `name` for `room`. */
async function kept(test: (text: string) => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    let text = "";
    try {
      text = readFileSync(join(home, TRACES_FILE), "utf8");
    } catch {
      // Not written yet.
    }
    if (test(text)) return;
    await sleep(50);
  }
  throw new Error("the trace was not kept");
}

describe("duet trace", () => {
  it("says there is none yet, and refuses an id that is not hex, in one line", async () => {
    const none = terminal();
    expect(await runCli(["trace"], none.io)).toBe(1);
    expect(none.printed()).toMatch(/^duet trace: no traces in .*traces\.jsonl yet/);
    const bad = terminal();
    expect(await runCli(["trace", "not-hex!"], bad.io)).toBe(2);
    expect(bad.printed()).toMatch(/duet trace takes a trace ID of 4 to 32 hex characters/);
  });

  it("last: draws the newest turn as a waterfall with its model call, tokens, commands and exit codes", async () => {
    const ask = terminal();
    expect(await runCli(["ask", "cli-trace", "SAY: Looking <run>echo traced-1</run> <run>sh -c 'exit 3'</run>"], ask.io)).toBe(0);
    await kept((text) => text.includes("execute_tool") && text.includes("invoke_agent"));
    const t = terminal();
    expect(await runCli(["trace", "last"], t.io)).toBe(0);
    const lines = t.printed().split("\n");
    expect(lines[0]).toMatch(/^trace [0-9a-f]{32} {2}\d+ ms, \d+ spans$/);
    const line = (name: string) => lines.filter((l) => l.trimStart().startsWith(name));
    expect(line("invoke_agent duet")).toHaveLength(1);
    expect(line("chat fake-model")[0]).toMatch(/\|[ █]+\| +\d+ ms {2}\d+ in \/ \d+ out tokens/);
    const tools = line("execute_tool shell");
    expect(tools).toHaveLength(2);
    expect(tools[0]).toContain("$ echo traced-1, exit 0, 9 B out");
    expect(tools[1]).toContain("exit 3");
    // Children are drawn under their parent, indented.
    expect(line("chat fake-model")[0].indexOf("chat")).toBeGreaterThan(line("invoke_agent duet")[0].indexOf("invoke_agent"));
  });

  it("finds a failed turn by the ref its error line ends with", async () => {
    const ask = terminal();
    expect(await runCli(["ask", "cli-trace-fail", "FAIL:500"], ask.io)).toBe(1);
    const ref = /\(ref ([0-9a-f]{8})\)\s*$/.exec(ask.printed())?.[1];
    expect(ref, ask.printed()).toBeDefined();
    await kept((text) => text.includes(ref!));
    const t = terminal();
    expect(await runCli(["trace", ref!], t.io)).toBe(0);
    expect(t.printed()).toMatch(new RegExp(`^trace ${ref}`));
    expect(t.printed()).toMatch(/chat fake-model.*failed: DuetError: model_error/);
    const missing = terminal();
    expect(await runCli(["trace", "0000ffff"], missing.io)).toBe(1);
    expect(missing.printed()).toMatch(/^duet trace: no trace 0000ffff among the last \d+ spans/);
  });
});
