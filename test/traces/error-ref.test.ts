import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../scripts/duet-cli.ts";
import { startTraceCollector, TRACES_FILE, type TraceCollector } from "../../scripts/dev/trace-store.ts";
import { fakeTerminal } from "../cli/fake-terminal.ts";
import { startFakeSlack, type FakeSlack } from "../fakes/slack/index.ts";
import { quietPort } from "../helpers/ports.ts";
import type { Stack } from "../helpers/stack.ts";
import { bodyText, type BotHandle, newChannel, slash, slashResponse, startBot } from "../slack/harness.ts";

/**
 * An error a person sees outside an ask (a `/duet` command the Worker could
 * not answer) ends with a `ref`, and `duet trace <ref>` finds its trace: the
 * real bolt bot exports to the collector `pnpm dev` runs, which keeps the
 * spans where the CLI reads them.
 */

let slack: FakeSlack;
let bot: BotHandle;
let collector: TraceCollector;
let home: string;
let worker: { workerUrl: string; token: string };

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "duet-error-ref-"));
  collector = await startTraceCollector(join(home, TRACES_FILE));
  slack = await startFakeSlack();
  // Nothing listens there: every call to the Worker fails.
  worker = { workerUrl: `http://127.0.0.1:${await quietPort()}`, token: "error-ref-token-0123456789" };
  bot = await startBot(slack, worker, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
});
afterAll(async () => {
  await bot?.stop();
  await slack?.close();
  await collector?.close();
  rmSync(home, { recursive: true, force: true });
});

/** `/duet <text>` while the Worker is down: the line says so and ends with a ref; `duet trace <ref>` then draws that trace. */
async function failedAndTraced(text: string): Promise<{ ref: string; printed: string }> {
  const { fields } = await slash(slack, bot, newChannel(), text);
  const said = bodyText(await slashResponse(slack, fields));
  expect(said).toMatch(/can't be reached right now/);
  const ref = /\(ref ([0-9a-f]{8})\)\s*$/.exec(said)?.[1];
  expect(ref, said).toBeDefined();
  await expect.poll(() => readFileSync(join(home, TRACES_FILE), "utf8").includes(`"traceId":"${ref}`), { timeout: 15_000 }).toBe(true);
  const t = fakeTerminal(worker as Stack);
  t.io.env.DUET_HOME = home;
  expect(await runCli(["trace", ref!], t.io)).toBe(0);
  return { ref: ref!, printed: t.printed() };
}

describe("an error's ref", () => {
  it("a /duet command the Worker could not answer ends with a ref, and duet trace finds the failure by it", async () => {
    const { ref, printed } = await failedAndTraced("schedules");
    expect(printed).toMatch(new RegExp(`^trace ${ref}`));
    expect(printed).toMatch(/duet\.schedules.*failed: /);
  });

  it("a /duet get the Worker could not answer ends with a ref, and duet trace finds the failed get by it", async () => {
    const { ref, printed } = await failedAndTraced("get notes.txt");
    expect(printed).toMatch(new RegExp(`^trace ${ref}`));
    expect(printed).toMatch(/duet\.get.*failed: /);
  });
});
