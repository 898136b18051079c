import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BUILT_ENV, BUILT_NODE_FLAGS } from "./runtime.ts";

/**
 * The built bots' flags and memory settings are written out by hand where an
 * operator starts a bot (the image is checked in test/built/compose.test.ts):
 * each must say what the tests and the benchmark run.
 */

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const envWords = Object.entries(BUILT_ENV).map(([k, v]) => `${k}=${v}`);

describe("how the built bots are started", () => {
  it("every pnpm start:* script runs node with the built flags and memory settings", () => {
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
    const starts = Object.entries(scripts).filter(([name]) => name.startsWith("start:"));
    expect(starts.map(([name]) => name)).toEqual(["start:slack", "start:discord", "start:discord-sharded"]);
    for (const [name, line] of starts) {
      const command = name.slice("start:".length);
      // scripts/built.mjs first: one line, not a stack, when dist/ was never built.
      expect(line, name).toBe(["node scripts/built.mjs", "&&", ...envWords, "node", ...BUILT_NODE_FLAGS, "dist/bots/duet-bot.js", command].join(" "));
    }
  });

  it("the documented systemd unit runs node with the built flags and memory settings", () => {
    const readme = read("docs/deploying.md");
    expect(/^ExecStart=(.+)$/m.exec(readme)?.[1]).toBe(["/usr/bin/node", ...BUILT_NODE_FLAGS, "/opt/duet/duet-bot.js", "slack"].join(" "));
    const environment = /^Environment=(.+)$/m.exec(readme)?.[1].split(" ") ?? [];
    expect(environment).toEqual(expect.arrayContaining(envWords));
  });
});
