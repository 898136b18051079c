import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as wait } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { inProcessGroup } from "./process-group.ts";

/**
 * The container's way of running a streamed command (its session's background
 * pattern, reduced): a subshell of bash with the command, then its exit status
 * written to a file; its kill sends SIGTERM to that subshell's pid.
 */
function inContainerSubshell(command: string, dir: string) {
  const script = `{\n${command}\n  CMD_EXIT=$?\n  echo "$CMD_EXIT" > exit.tmp; mv exit.tmp exit\n} < /dev/null > out 2> err & echo $! > pid\nwait`;
  const shell = spawn("bash", ["--norc", "-c", script], { cwd: dir, stdio: "ignore" });
  const ended = new Promise<void>((resolve) => shell.once("exit", () => resolve()));
  return { ended };
}

/** Alive: in /proc and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

async function until(dir: string, file: string): Promise<string> {
  while (!existsSync(join(dir, file))) await wait(10);
  return readFileSync(join(dir, file), "utf8").trim();
}

describe("inProcessGroup: a command the container's kill ends whole", () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("leaves a command's output and exit status as they were, quotes included", async () => {
    dir = mkdtempSync(join(tmpdir(), "duet-pg-"));
    const run = inContainerSubshell(inProcessGroup(`printf 'it'"'"'s\\nb'; echo "e r" >&2; exit 3`, "r1"), dir);
    await run.ended;
    expect(readFileSync(join(dir, "out"), "utf8")).toBe("it's\nb");
    expect(readFileSync(join(dir, "err"), "utf8")).toBe("e r\n");
    expect(readFileSync(join(dir, "exit"), "utf8")).toBe("3\n");
  });

  it("turns the SIGTERM to the subshell into the end of everything the command started", async () => {
    dir = mkdtempSync(join(tmpdir(), "duet-pg-"));
    const run = inContainerSubshell(inProcessGroup("echo $$ > inner; sleep 30 & echo $! > sleeper; wait; echo two > second", "r2"), dir);
    const [inner, sleeper] = [Number(await until(dir, "inner")), Number(await until(dir, "sleeper"))];
    process.kill(Number(await until(dir, "pid")), "SIGTERM");
    // The subshell lives on to report the kill, as the container's stream needs it to.
    await run.ended;
    expect(readFileSync(join(dir, "exit"), "utf8")).toBe("143\n");
    // Both go (without the process group the sleep would run its 30 s, and this loop with it).
    while (alive(inner) || alive(sleeper)) await wait(10);
    expect(existsSync(join(dir, "second"))).toBe(false);
  });
});
