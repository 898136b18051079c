import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import { RoomDisks } from "./disk.ts";
import { findProgram } from "./launch.ts";
import { Workspaces } from "./workspace.ts";

// Closing the executor unmounts every room's disk. One that stays mounted must be said, with why:
// otherwise a folder left mounted is found only later, when removing it answers EBUSY.

const roots: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

test("a room's folder that cannot be unmounted is said on stderr with the reason, and the next room's unmount is still tried", async () => {
  const root = mkdtempSync(join(tmpdir(), "duet-unmount-"));
  roots.push(root);
  const sessions = join(root, "sessions");
  mkdirSync(sessions);
  // Two rooms whose folders are mount points without mounting anything here: links to /proc and /sys.
  symlinkSync("/proc", join(sessions, "sandbox-a"));
  symlinkSync("/sys", join(sessions, "sandbox-b"));
  // An unmount program that refuses every call, as umount does for a folder a process still holds.
  const refuse = findProgram("false");
  expect(refuse).toBeTruthy();
  const disks = new RoomDisks({ mkfs: refuse!, mount: refuse!, umount: refuse! }, 1 << 20, { uid: 0, gid: 0 });
  const said: string[] = [];
  vi.spyOn(console, "error").mockImplementation((line: string) => void said.push(line));

  await new Workspaces(root, null, disks).unmountAll();

  expect(said).toHaveLength(2);
  expect(said[0]).toContain(`[sandbox] could not unmount ${join(sessions, "sandbox-a")}: `);
  expect(said[1]).toContain(`[sandbox] could not unmount ${join(sessions, "sandbox-b")}: `);
  expect(said[0]).toContain("it stays mounted until the next start");
});
