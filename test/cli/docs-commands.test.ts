import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../scripts/duet-cli.ts";
import { startTraceCollector, TRACES_FILE, type TraceCollector } from "../../scripts/dev/trace-store.ts";
import { shellCommands, shellWords } from "../helpers/doc-commands.ts";
import { startedForTests } from "../helpers/lifecycle.ts";
import { startSandboxStack } from "../helpers/sandbox-stack.ts";
import type { Stack } from "../helpers/stack.ts";
import { REPO_ROOT } from "../helpers/worker.ts";
import { fakeTerminal } from "./fake-terminal.ts";

/**
 * Every `duet` line docs/running.md shows, run as written, in the order it
 * shows them, against the real Worker and the real bubblewrap executor: each
 * ends with exit 0 and says something. Only what a reader fills in is filled
 * in (an ID the command before it printed, an optional NAME left out, the
 * file `put` sends), so a renamed command, a changed argument or a line that
 * now fails turns this red.
 */

const PREFIX = "npm run -s duet -- ";

let stack: Stack;
let collector: TraceCollector;
let home: string;
let here: string;
startedForTests(
  async () => {
    home = mkdtempSync(join(tmpdir(), "duet-docs-home-"));
    here = mkdtempSync(join(tmpdir(), "duet-docs-cwd-"));
    // `pnpm dev`'s own collector, set as `pnpm dev` sets it, so `duet trace` finds the turns above it.
    collector = await startTraceCollector(join(home, TRACES_FILE));
    const started = await startSandboxStack({ wire: ({ url, token }) => ({ SANDBOX_URL: url, SANDBOX_TOKEN: token, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: "0" }) });
    return {
      ...started,
      stop: async () => {
        await collector.close();
        rmSync(home, { recursive: true, force: true });
        rmSync(here, { recursive: true, force: true });
        await started.stop();
      },
    };
  },
  (started) => ({ stack } = started),
);

async function duet(args: string[], input: readonly string[] = []): Promise<{ code: number; out: string }> {
  const t = fakeTerminal(stack, input);
  Object.assign(t.io.env, { DUET_HOME: home, INIT_CWD: here });
  const code = await runCli(args, t.io);
  return { code, out: t.printed() };
}

describe("docs/running.md's duet commands", () => {
  it("each runs as written and answers, in the order the page shows them", async () => {
    const lines = shellCommands(readFileSync(join(REPO_ROOT, "docs/running.md"), "utf8")).filter((l) => l.startsWith(PREFIX));
    expect(lines.length).toBeGreaterThanOrEqual(15);
    writeFileSync(join(here, "data.csv"), "a,b\n1,2\n");
    const printed = new Map<string, string>();
    for (const line of lines) {
      let args = shellWords(line.slice(PREFIX.length)).filter((w) => !/^\[[A-Z]+\]$/.test(w));
      const [command, room] = args;
      // What a reader does before a line that needs it: a command waiting for approval, a file to fetch.
      if (command === "approve") {
        const asked = await duet(["ask", room!, "SAY: Listing. <run>ls -la</run>"]);
        args = args.map((w) => (w === "ID" ? /id ([0-9a-f-]{36})/.exec(asked.out)![1]! : w));
      }
      if (command === "unschedule") args = args.map((w) => (w === "ID" ? /`([0-9a-f]{8})`/.exec(printed.get("schedules")!)![1]! : w));
      if (command === "get") expect((await duet(["run", room!, "printf 'x,y\\n' > out.csv"])).code).toBe(0);
      if (command === "trace") args = args.map((w) => (w === "[ID|last]" ? "last" : w));
      const ran = await duet(args, command === "chat" ? ["SAY: hello from chat"] : []);
      expect(ran, `${line}\n${ran.out}`).toMatchObject({ code: 0 });
      expect(ran.out.trim(), line).not.toBe("");
      printed.set(command!, ran.out);
    }
    // The ones whose effect a reader checks: the file sent, the file fetched, the schedule gone.
    expect(printed.get("put")).toContain("uploads/data.csv");
    expect(readFileSync(join(here, "out.csv"), "utf8")).toBe("x,y\n");
    expect(printed.get("trace")).toMatch(/^trace [0-9a-f]{32}/);
  });
});
