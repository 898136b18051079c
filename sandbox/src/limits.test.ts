import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestExecutor, type TestExecutor } from "./test-support.ts";

// Per-room limits with cgroups (this host: cgroup v1 as root). RLIMIT_DATA alone lets
// shared anonymous memory through; the room's memory group does not.

const CAP_MB = 64;
let ex: TestExecutor;

beforeAll(async () => {
  ex = await startTestExecutor({ maxMemoryMb: CAP_MB, maxProcs: 64 });
});
afterAll(async () => {
  await ex?.stop();
});

/** Maps `mb` MiB of shared anonymous memory (MAP_SHARED: RssShmem, not RLIMIT_DATA) and touches every page. */
const mapShared = (mb: number) =>
  `python3 -c 'import mmap; m = mmap.mmap(-1, ${mb} << 20); [m.__setitem__(i, 1) for i in range(0, len(m), 4096)]; print("mapped")'`;

describe("per-room memory, processes and CPU", () => {
  test("the start-up line says what is capped per room", () => {
    expect(ex.limits).toBe(`per room: memory ${CAP_MB} MiB, 64 processes, 1 CPU, disk 1 GiB`);
  });

  test("a process mapping 3x the memory cap in shared memory is stopped, and the output says why", async () => {
    const r = await ex.exec("sandbox-mem-hog", mapShared(3 * CAP_MB), 60_000);
    expect(r.stdout).not.toContain("mapped");
    expect(r.exitCode).toBe(137);
    expect(r.stderr).toContain(`[sandbox] a process was killed: the room's commands reached their memory limit (${CAP_MB} MiB, SANDBOX_MAX_MEMORY_MB)`);
    // Under the cap the same program runs: the probe is not what fails.
    const small = await ex.exec("sandbox-mem-hog", mapShared(CAP_MB / 4), 60_000);
    expect(small).toMatchObject({ exitCode: 0, stdout: "mapped\n" });
  });

  test("the cap is the room's, not each process's: several processes together are stopped too", async () => {
    // Three processes of half the cap each, holding it for 3 s so they overlap.
    const hold = `python3 -c 'import mmap, time; m = mmap.mmap(-1, ${CAP_MB / 2} << 20); [m.__setitem__(i, 1) for i in range(0, len(m), 4096)]; time.sleep(3)'`;
    const r = await ex.exec("sandbox-mem-many", `pids=; for i in 1 2 3; do ${hold} & pids="$pids $!"; done; for p in $pids; do wait $p; echo "rc=$?"; done`, 60_000);
    expect(r.stdout).toContain("rc=137");
    expect(r.stderr).toContain("reached their memory limit");
  });

  test("another room is not held back by a room at its cap", async () => {
    const r = await ex.exec("sandbox-mem-other", mapShared(CAP_MB / 4), 60_000);
    expect(r).toMatchObject({ exitCode: 0, stdout: "mapped\n" });
  });
});
