import type { Metafile } from "esbuild";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BOT_ENTRIES, bundle } from "./bundle.ts";

/**
 * What the bots' bundles load when they start: the modules reached from the
 * entry through static imports and require calls are evaluated and kept by
 * every bot, so what only some configurations use is reached through a dynamic
 * import (or left out), and an idle bot does not carry it.
 */

const BOTS = { slack: "slack/main", discord: "discord/main" } as const;
let dir: string;
let meta: Metafile;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "duet-bundle-test-"));
  meta = await bundle(dir, Object.fromEntries(Object.values(BOTS).map((out) => [out, BOT_ENTRIES[out]])));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The inputs reached from `entry`, through every import or only through those evaluated at start (no dynamic import()). */
function reached(entry: string, atStart: boolean): string[] {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  for (let path = queue.pop(); path !== undefined; path = queue.pop()) {
    for (const edge of meta.inputs[path]?.imports ?? []) {
      if (edge.external || (atStart && edge.kind === "dynamic-import") || seen.has(edge.path)) continue;
      seen.add(edge.path);
      queue.push(edge.path);
    }
  }
  return [...seen];
}

/** The npm packages among `paths` (pnpm's layout: the last node_modules/ names the package). */
const packages = (paths: string[]) => new Set(paths.map((p) => /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p)?.[1]).filter((p): p is string => Boolean(p)));

const OTEL_SDK = ["@opentelemetry/sdk-trace-base", "@opentelemetry/exporter-trace-otlp-http", "@opentelemetry/resources", "@opentelemetry/core"];

describe("the bots' bundles", () => {
  for (const [bot, out] of Object.entries(BOTS)) {
    it(`${bot}: OpenTelemetry's SDK is in the bundle, reached only by the import a configured collector makes`, () => {
      const entry = BOT_ENTRIES[out];
      const all = packages(reached(entry, false));
      const atStart = packages(reached(entry, true));
      expect(OTEL_SDK.filter((p) => all.has(p))).toEqual(OTEL_SDK);
      expect(OTEL_SDK.filter((p) => atStart.has(p))).toEqual([]);
    });
  }

  it("slack: bolt's ExpressReceiver and AwsLambdaReceiver are left out, and express with them; each one's stand-in says so", () => {
    const all = packages(reached(BOT_ENTRIES[BOTS.slack], false));
    expect(all.has("@slack/bolt")).toBe(true);
    expect(["express", "body-parser", "mime-db", "@types/aws-lambda"].filter((p) => all.has(p))).toEqual([]);
    const code = readFileSync(join(dir, `${BOTS.slack}.js`), "utf8");
    expect(code).toContain("bolt's ExpressReceiver is not in Duet's bundle (the bots use HTTPReceiver or SocketModeReceiver)");
  });
});
