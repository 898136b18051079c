import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestExecutor, type TestExecutor } from "../test-support.ts";

// The workspace files API of the real executor (bubblewrap), as the Worker's local provider uses it.

const FILE_MAX = 1024 * 1024;
const WORKSPACE_MAX = 3 * 1024 * 1024;
let ex: TestExecutor;
let host: string;
const HOST_SECRET = `host-only-${randomBytes(8).toString("hex")}`;

beforeAll(async () => {
  ex = await startTestExecutor({ fileMaxBytes: FILE_MAX, workspaceMaxBytes: WORKSPACE_MAX });
  // A host folder and file no sandbox may reach: a link the sandbox makes to them must lead nowhere.
  host = mkdtempSync(join(tmpdir(), "duet-host-"));
  writeFileSync(join(host, "secret.txt"), HOST_SECRET);
});
afterAll(async () => {
  await ex?.stop();
  rmSync(host, { recursive: true, force: true });
});

const url = (session: string, path: string) => `${ex.url}/api/sessions/${session}/files/${path}`;
const auth = () => ({ authorization: `Bearer ${ex.token}` });
const put = (session: string, path: string, body: BodyInit, query = "") =>
  fetch(url(session, path) + query, { method: "PUT", headers: auth(), body, duplex: "half" } as RequestInit);
const get = (session: string, path: string) => fetch(url(session, path), { headers: auth() });
const workspace = (session: string) => join(ex.root, "sessions", session);

describe("files in and out", () => {
  test("a file put comes back byte for byte, with its type, length and sha256", async () => {
    const bytes = randomBytes(300_000);
    const res = await put("sandbox-f1", "out/chart.png", bytes);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: "out/chart.png", bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") });
    const back = await get("sandbox-f1", "out/chart.png");
    expect(back.headers.get("content-type")).toBe("image/png");
    expect(back.headers.get("content-length")).toBe(String(bytes.length));
    expect(Buffer.from(await back.arrayBuffer()).equals(bytes)).toBe(true);
    // The sandbox's commands see it and may change it (it belongs to the sandbox's user).
    expect((await ex.exec("sandbox-f1", "wc -c < out/chart.png && echo more >> out/chart.png && echo ok")).stdout).toBe(`${bytes.length}\nok\n`);
  });

  test("a chunked upload (no Content-Length) is streamed in whole", async () => {
    const parts = [randomBytes(70_000), randomBytes(5), randomBytes(200_000)];
    const body = new ReadableStream({ pull(c) { const p = parts.shift(); if (p) c.enqueue(p); else c.close(); } });
    const res = await put("sandbox-f1", "chunked.bin", body);
    expect(await res.json()).toMatchObject({ path: "chunked.bin", bytes: 270_005 });
  });

  test("keep=1: a taken name gets a number, the first file is untouched", async () => {
    await put("sandbox-f2", "uploads/data.csv", "a,b\n");
    const second = await put("sandbox-f2", "uploads/data.csv", "c,d\n", "?keep=1");
    expect(await second.json()).toMatchObject({ path: "uploads/data-1.csv", bytes: 4 });
    expect(await (await get("sandbox-f2", "uploads/data.csv")).text()).toBe("a,b\n");
    expect(await (await get("sandbox-f2", "uploads/data-1.csv")).text()).toBe("c,d\n");
  });

  test("a folder is listed with sizes and kinds; a missing file is 404", async () => {
    await put("sandbox-f3", "docs/a.txt", "12345");
    await ex.exec("sandbox-f3", "mkdir -p docs/sub && ln -s a.txt docs/l");
    const res = await fetch(`${ex.url}/api/sessions/sandbox-f3/files?dir=docs`, { headers: auth() });
    const { entries } = (await res.json()) as { entries: Array<{ path: string; bytes: number; kind: string; modifiedAt: string }> };
    expect(entries.map(({ path, bytes, kind }) => ({ path, bytes, kind }))).toEqual([
      { path: "docs/a.txt", bytes: 5, kind: "file" },
      { path: "docs/l", bytes: 0, kind: "link" },
      { path: "docs/sub", bytes: 0, kind: "dir" },
    ]);
    expect(Number.isNaN(Date.parse(entries[0].modifiedAt))).toBe(false);
    expect((await get("sandbox-f3", "docs/nope.txt")).status).toBe(404);
  });

  test("cd and export carry from one command to the next", async () => {
    await ex.exec("sandbox-f4", "mkdir -p proj/src && cd proj/src && export BUILD=debug");
    expect((await ex.exec("sandbox-f4", 'pwd; echo "$BUILD"')).stdout).toBe("/workspace/proj/src\ndebug\n");
  });
});

describe("never out of the workspace", () => {
  test.each([
    ["..", "..%2F..%2Fsecret.txt"],
    ["an absolute path", "%2Fetc%2Fpasswd"],
    ["a newline", "a%0Ab.txt"],
    ["NUL", "a%00b.txt"],
  ])("%s in the path → 400, nothing written", async (_name, path) => {
    const res = await put("sandbox-s1", path, "x");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/path/);
    expect((await get("sandbox-s1", path)).status).toBe(400);
    expect(existsSync(workspace("sandbox-s1")) ? readdirSync(workspace("sandbox-s1")).filter((n) => n !== ".duet") : []).toEqual([]);
  });

  test("a symlink the sandbox made to a host file never reads the host's bytes", async () => {
    await ex.exec("sandbox-s2", `ln -s ${join(host, "secret.txt")} notes.txt && ln -s ${host} hostdir && ln -s /etc/passwd passwd`);
    for (const path of ["notes.txt", "hostdir/secret.txt", "passwd"]) {
      const res = await get("sandbox-s2", path);
      expect(res.status, path).toBe(400);
      const text = await res.text();
      expect(text).not.toContain(HOST_SECRET);
      expect(text).not.toContain("root:x:0:0");
    }
  });

  test("a write through a symlinked folder is refused and lands nowhere", async () => {
    await ex.exec("sandbox-s3", `ln -s ${host} out`);
    const res = await put("sandbox-s3", "out/planted.txt", "x");
    expect(res.status).toBe(400);
    expect(readdirSync(host)).toEqual(["secret.txt"]);
  });

  test("a write onto a symlink's name replaces the link, never the file it points at", async () => {
    await ex.exec("sandbox-s4", `ln -s ${join(host, "secret.txt")} target.txt`);
    expect((await put("sandbox-s4", "target.txt", "mine")).status).toBe(200);
    expect(await (await get("sandbox-s4", "target.txt")).text()).toBe("mine");
    expect(await (await import("node:fs/promises")).readFile(join(host, "secret.txt"), "utf8")).toBe(HOST_SECRET);
  });
});

describe("bad uploads", () => {
  test("a name over 255 bytes → 400 saying so, without a host path", async () => {
    const res = await put("sandbox-b2", `dir/${"n".repeat(300)}.txt`, "x");
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: string };
    expect(error).toBe("each file or folder name in the path must be at most 255 bytes");
  });

  test("a workspace out of inodes → 413 like one out of bytes, without a host path", async () => {
    // Empty files use inodes and no blocks: the workspace's filesystem runs out of inodes first.
    const filled = await ex.exec("sandbox-b3", "mkdir many && cd many && i=0; while : > f$i 2>/dev/null; do i=$((i+1)); done; echo $i");
    expect(Number(filled.stdout)).toBeGreaterThan(0);
    const res = await put("sandbox-b3", "one-more.txt", "x");
    expect(res.status).toBe(413);
    const { error } = (await res.json()) as { error: string };
    expect(error).toBe("the workspace is full: no room for another file or folder");
  });
});

describe("limits", () => {
  test("a file over DUET_FILE_MAX_BYTES → 413, nothing written (declared or streamed)", async () => {
    const big = randomBytes(FILE_MAX + 1);
    const declared = await put("sandbox-l1", "big.bin", big);
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { error: string }).error).toContain("DUET_FILE_MAX_BYTES");
    const parts = [big.subarray(0, 600_000), big.subarray(600_000)];
    const streamed = await put("sandbox-l1", "big.bin", new ReadableStream({ pull(c) { const p = parts.shift(); if (p) c.enqueue(p); else c.close(); } }));
    expect(streamed.status).toBe(413);
    expect(readdirSync(workspace("sandbox-l1")).filter((n) => n !== ".duet")).toEqual([]);
  });

  test("a file the sandbox grew past the limit is not read out → 413", async () => {
    await ex.exec("sandbox-l2", `head -c ${FILE_MAX + 10} /dev/zero > grown.bin`);
    expect((await get("sandbox-l2", "grown.bin")).status).toBe(413);
  });

  test("past SANDBOX_WORKSPACE_MAX_BYTES → 413, the workspace keeps what it had", async () => {
    await ex.exec("sandbox-l3", `head -c ${WORKSPACE_MAX - 1000} /dev/zero > fill.bin`);
    const res = await put("sandbox-l3", "more.bin", randomBytes(2000));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toContain("SANDBOX_WORKSPACE_MAX_BYTES");
    expect(readdirSync(workspace("sandbox-l3")).filter((n) => n !== ".duet")).toEqual(["fill.bin"]);
  });
});
