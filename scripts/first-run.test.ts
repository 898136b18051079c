import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

/**
 * What a fresh clone's first command meets before anything was installed or
 * built: the two guards package.json runs first, each run in a copy of the
 * checkout's shape, with a stand-in `npx` on PATH that records how it was called.
 */

const here = new URL(".", import.meta.url).pathname;
let clone: string;
let calls: string;

beforeEach(() => {
  clone = mkdtempSync(join(tmpdir(), "duet-first-run-"));
  mkdirSync(join(clone, "scripts"));
  for (const name of ["ensure-deps.mjs", "built.mjs"]) copyFileSync(join(here, name), join(clone, "scripts", name));
  writeFileSync(join(clone, "pnpm-lock.yaml"), "lockfileVersion: '9.0'\n");
  // The stand-in installer: records its arguments and makes node_modules, as pnpm would.
  mkdirSync(join(clone, "bin"));
  calls = join(clone, "npx-calls");
  writeFileSync(join(clone, "bin", "npx"), `#!/bin/sh\necho "$*" >> "${calls}"\nmkdir -p node_modules\n`);
  chmodSync(join(clone, "bin", "npx"), 0o755);
});
afterEach(() => rmSync(clone, { recursive: true, force: true }));

const run = (script: string) =>
  spawnSync(process.execPath, [join(clone, "scripts", script)], { cwd: clone, encoding: "utf8", env: { ...process.env, PATH: `${join(clone, "bin")}:${process.env.PATH}` } });
const installs = () => (existsSync(calls) ? readFileSync(calls, "utf8").trim().split("\n") : []);

describe("the first command on a fresh clone", () => {
  it("installs the dependencies once before `duet`, `build` or `test`, and again only when the lockfile changed", () => {
    const first = run("ensure-deps.mjs");
    expect(first.status).toBe(0);
    expect(installs()).toEqual([expect.stringMatching(/^-y pnpm@[\d.]+ install --frozen-lockfile$/)]);
    expect(run("ensure-deps.mjs").status).toBe(0);
    expect(installs()).toHaveLength(1);
    writeFileSync(join(clone, "pnpm-lock.yaml"), "lockfileVersion: '9.0'\n# a new package\n");
    expect(run("ensure-deps.mjs").status).toBe(0);
    expect(installs()).toHaveLength(2);
  });

  it("every command that needs the dependencies runs the installer first", () => {
    const scripts = (JSON.parse(readFileSync(join(here, "..", "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    for (const name of ["dev", "duet", "build", "test"]) expect(scripts[name], name).toMatch(/^node scripts\/ensure-deps\.mjs && /);
  });

  it("a bot started before `npm run build` says so in one line, and starts once it is built", () => {
    const unbuilt = run("built.mjs");
    expect(unbuilt.status).toBe(1);
    expect(unbuilt.stderr).toBe("dist/bots/duet-bot.js is missing: run `npm run build` first\n");
    mkdirSync(join(clone, "dist", "bots"), { recursive: true });
    writeFileSync(join(clone, "dist", "bots", "duet-bot.js"), "");
    expect(run("built.mjs")).toMatchObject({ status: 0, stderr: "" });
  });
});
