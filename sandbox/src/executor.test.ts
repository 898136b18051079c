import { existsSync, readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestExecutor, type TestExecutor } from "./test-support.ts";

// The real executor under bubblewrap: what a room's commands see and get back.

let ex: TestExecutor;
beforeAll(async () => {
  ex = await startTestExecutor();
});
afterAll(async () => {
  await ex?.stop();
});

describe("running commands", () => {
  test("output and exit code come back", async () => {
    const r = await ex.exec("sandbox-slack-T1-C1", "echo hi; echo oops >&2; exit 3");
    expect(r).toMatchObject({ success: false, exitCode: 3, stdout: "hi\n", stderr: "oops\n", truncated: false, timedOut: false });
    expect(typeof r.duration).toBe("number");

    const ok = await ex.exec("sandbox-slack-T1-C1", "pwd; echo $HOME; id -un");
    expect(ok).toMatchObject({ success: true, exitCode: 0, stdout: "/workspace\n/workspace\nsandbox\n" });
  });

  test("a file written in room A persists for room A and is invisible from room B", async () => {
    await ex.exec("sandbox-slack-T1-A", "echo secret-of-a > note.txt && mkdir -p src && echo x > src/main.py");
    const again = await ex.exec("sandbox-slack-T1-A", "cat note.txt; ls src");
    expect(again.stdout).toBe("secret-of-a\nmain.py\n");

    const other = await ex.exec("sandbox-slack-T1-B", "cat note.txt; ls -A /workspace | wc -l; grep -rs secret-of-a / --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr -l || echo not-found");
    expect(other.stdout).toBe("0\nnot-found\n");
    expect(other.stderr).toContain("No such file or directory");
  });

  test("DELETE removes the workspace: the file is gone for the next command", async () => {
    const room = "sandbox-discord-G1-C9";
    await ex.exec(room, "echo keep > kept.txt && mkdir -p ro && touch ro/f && chmod -w ro");
    expect((await ex.exec(room, "cat kept.txt")).stdout).toBe("keep\n");

    const del = await ex.request("DELETE", `/api/sessions/${room}`);
    expect(del).toEqual({ status: 200, body: { success: true } });

    const after = await ex.exec(room, "cat kept.txt; ls -A | wc -l");
    expect(after.stdout).toBe("0\n");
    expect(after.stderr).toContain("kept.txt: No such file or directory");

    // Deleting again (or a room that never ran anything) is fine.
    expect(await ex.request("DELETE", `/api/sessions/${room}`)).toEqual({ status: 200, body: { success: true } });
    expect(await ex.request("DELETE", "/api/sessions/sandbox-never-used")).toEqual({ status: 200, body: { success: true } });
  });
});

describe("limits", () => {
  test("`sleep 600` is killed at the timeout, with nothing left running", async () => {
    const r = await ex.exec("sandbox-limits", "echo started; sleep 600.4242", 1000);
    expect(r).toMatchObject({ success: false, exitCode: 124, timedOut: true, stdout: "started\n" });
    expect(r.stderr).toContain("timed out after 1000 ms");
    expect(hostProcessesMatching("600.4242")).toEqual([]);
  });

  test("endless output (`yes`) is capped and marked truncated", async () => {
    const r = await ex.exec("sandbox-limits", "yes", 60_000);
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(r.stdout)).toBe(1024 * 1024);
    expect(r.stdout.startsWith("y\ny\n")).toBe(true);
    // Stopped for flooding, not left to run to its deadline.
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(137);
    expect(r.stderr).toContain("output cut at 1048576 bytes");
  });

  test("a command that prints more than the cap and then finishes keeps its own exit code", async () => {
    const r = await ex.exec("sandbox-limits", "head -c 2000000 /dev/zero | tr '\\0' a; exit 7");
    expect(r).toMatchObject({ exitCode: 7, truncated: true, timedOut: false });
    expect(r.stdout.length).toBe(1024 * 1024);
  });

  test("a fork bomb is contained by the process limit and the executor keeps answering", async () => {
    // The `sleep` keeps the command (and so its sandbox) alive while the bomb forks;
    // without it the shell returns at once and its sandbox, bomb included, is torn down.
    const bomb = ex.exec("sandbox-bomb", ":(){ :|:& };:; sleep 600", 4000);
    // While it runs, another room's commands (which need to fork) still work.
    const other = await ex.exec("sandbox-bystander", "echo $(echo alive) | cat");
    expect(other).toMatchObject({ exitCode: 0, stdout: "alive\n" });

    const r = await bomb;
    expect(r).toMatchObject({ exitCode: 124, timedOut: true });
    expect(r.stderr).toMatch(/Resource temporarily unavailable/);

    const next = await ex.exec("sandbox-bomb", "echo still-here; ls /proc | grep -c '^[0-9]'");
    expect(next.exitCode).toBe(0);
    // Only the new command's own few processes: the bomb died with its sandbox.
    expect(next.stdout.split("\n")[0]).toBe("still-here");
    expect(Number(next.stdout.split("\n")[1])).toBeLessThan(10);
  });

  test.skipIf(!existsSync("/usr/bin/python3"))("memory per process is limited", async () => {
    const small = await ex.exec("sandbox-mem", "python3 -c 'b = bytearray(100 * 1024**2); print(len(b))'");
    expect(small).toMatchObject({ exitCode: 0, stdout: "104857600\n" });
    const big = await ex.exec("sandbox-mem", "python3 -c 'b = bytearray(3 * 1024**3); print(len(b))'");
    expect(big.exitCode).not.toBe(0);
    expect(big.stderr).toContain("MemoryError");
  });

  test("/tmp is private per command and size-capped; the rest of the root is read-only", async () => {
    const r = await ex.exec("sandbox-fs", "head -c 300M /dev/zero > /tmp/big; echo tmp=$?; touch /x /usr/x /etc/x /dev/x 2>&1 | sed 's/.*: //' | sort -u");
    expect(r.stdout).toBe("tmp=1\nRead-only file system\n");
    expect(r.stderr).toContain("No space left on device");
  });
});

/** Host processes whose command line contains `marker` (zombies have none). */
function hostProcessesMatching(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      if (cmd.includes(marker) && !cmd.includes("vitest")) found.push(`${pid}: ${cmd}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}
