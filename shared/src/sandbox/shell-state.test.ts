import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withShellState } from "./shell-state.ts";

/** Runs `cmd` the way both executors do: bash, in the workspace, inside the wrapper. */
function run(workspace: string, cmd: string) {
  const r = spawnSync("bash", ["-c", withShellState(cmd)], { cwd: workspace, encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: workspace } });
  return { exitCode: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("withShellState: cd and export carry from one command to the next", () => {
  let ws: string;
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  it("the next command starts where the last one cd'd, with what it exported", () => {
    ws = mkdtempSync(join(tmpdir(), "duet-shell-"));
    mkdirSync(join(ws, "sub dir"));
    expect(run(ws, `cd "sub dir" && export GREETING="it's a b"`).exitCode).toBe(0);
    expect(run(ws, `pwd; echo "$GREETING"`).stdout).toBe(`${join(ws, "sub dir")}\nit's a b\n`);
  });

  it("keeps the command's own exit status and output, and saves after an exit", () => {
    ws = mkdtempSync(join(tmpdir(), "duet-shell-"));
    mkdirSync(join(ws, "x"));
    expect(run(ws, "cd x; echo out; echo err >&2; exit 3")).toEqual({ exitCode: 3, stdout: "out\n", stderr: "err\n" });
    expect(run(ws, "basename $PWD").stdout).toBe("x\n");
  });

  it("a syntax error fails the command, not the state; a removed folder falls back to the workspace", () => {
    ws = mkdtempSync(join(tmpdir(), "duet-shell-"));
    mkdirSync(join(ws, "gone"));
    run(ws, "cd gone; export KEPT=1");
    const bad = run(ws, "if then");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("syntax error");
    rmSync(join(ws, "gone"), { recursive: true });
    expect(run(ws, 'pwd; echo "$KEPT"').stdout).toBe(`${ws}\n1\n`);
  });
});
