import { createHash, randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { DuetError } from "@duet/shared";
import { startCloudflareStack } from "./helpers/cloudflare-stack.ts";
import { startedForTests } from "./helpers/lifecycle.ts";
import type { Stack } from "./helpers/stack.ts";

/**
 * The files routes with SANDBOX_PROVIDER=cloudflare: the Worker's CloudflareFiles
 * drives the real @cloudflare/sandbox SDK (writeFile in parts, readFileStream,
 * listFiles, exec), whose container requests reach the stand-in's file API
 * (worker/test/sandbox-stand-in/container-files.ts) over the bubblewrap executor.
 */
const FILE_MAX = 3 * 1024 * 1024;

describe("workspace files through the cloudflare sandbox provider", () => {
  let stack: Stack;
  let root: string;
  startedForTests(
    () => startCloudflareStack({ DUET_FILE_MAX_BYTES: String(FILE_MAX) }),
    (started) => ({ stack, root } = started),
  );

  const raw = (room: string, path: string, init: RequestInit = {}) =>
    fetch(`${stack.workerUrl}/api/rooms/${room}/files/${path}`, { ...init, headers: { authorization: `Bearer ${stack.token}`, ...init.headers } });

  it("a file put in several parts comes back byte for byte, and its folder lists it", async () => {
    // Larger than one part (1 MiB), so it is joined in the container.
    const bytes = randomBytes(2_500_000);
    const pieces = [bytes.subarray(0, 700_000), bytes.subarray(700_000, 1_900_000), bytes.subarray(1_900_000)];
    const body = new ReadableStream<Uint8Array>({ pull: (c) => void (pieces.length ? c.enqueue(pieces.shift()!) : c.close()) });
    const written = await stack.client.putFile("cff-a", "out/blob.bin", body);
    expect(written).toEqual({ path: "out/blob.bin", bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") });
    const file = await stack.client.getFile("cff-a", "out/blob.bin");
    expect(file).toMatchObject({ bytes: bytes.length, type: "application/octet-stream" });
    expect(Buffer.from(await new Response(file.body).arrayBuffer()).equals(bytes)).toBe(true);
    expect((await stack.client.listFiles("cff-a", "out")).entries).toMatchObject([{ path: "out/blob.bin", bytes: bytes.length, kind: "file" }]);
    // A command sees the same file.
    expect((await stack.client.exec("cff-a", { cmd: "wc -c < out/blob.bin" })).result.stdout.trim()).toBe(String(bytes.length));
  });

  it("an upload lands in uploads/, a taken name gets a number, and a command reads it", async () => {
    const csv = "a,b\n1,2\n3,4\n";
    expect((await stack.client.putFile("cff-b", "uploads/data.csv", new TextEncoder().encode(csv), { userId: "U1" })).path).toBe("uploads/data.csv");
    expect((await stack.client.putFile("cff-b", "uploads/data.csv", new TextEncoder().encode("other\n"), { userId: "U2" })).path).toBe("uploads/data-1.csv");
    const res = await stack.client.message("cff-b", { text: "SAY: Counting. <run>wc -l uploads/data.csv uploads/data-1.csv</run>", userId: "U1" });
    expect(res.runs[0]).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/3 uploads\/data\.csv\n\s*1 uploads\/data-1\.csv\n/) });
    expect((await stack.client.listFiles("cff-b", "uploads")).entries.map((e) => e.path)).toEqual(["uploads/data-1.csv", "uploads/data.csv"]);
  });

  it("a file a command made reads out with the type its name says", async () => {
    await stack.client.exec("cff-c", { cmd: "printf 'PNG-BYTES' > chart.png" });
    const res = await raw("cff-c", "chart.png");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-length")).toBe("9");
    expect(await res.text()).toBe("PNG-BYTES");
  });

  it("a missing file or folder is 404 and a folder read as a file is 400, each with a message", async () => {
    await stack.client.exec("cff-d", { cmd: "mkdir -p sub" });
    const missing = await raw("cff-d", "nope.txt");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: expect.stringContaining("no such file in the workspace: nope.txt") });
    const folder = await raw("cff-d", "sub");
    expect(folder.status).toBe(400);
    expect(await folder.json()).toMatchObject({ details: { path: ["sub is not a regular file"] } });
    await expect(stack.client.listFiles("cff-d", "nowhere")).rejects.toMatchObject({ status: 404 });
  });

  it("a file over DUET_FILE_MAX_BYTES is 413 and leaves nothing in the workspace (declared or streamed)", async () => {
    const big = randomBytes(FILE_MAX + 1);
    await expect(stack.client.putFile("cff-e", "big.bin", big, { bytes: big.length })).rejects.toMatchObject({ code: "payload_too_large", status: 413 });
    const pieces = [big.subarray(0, 1_500_000), big.subarray(1_500_000)];
    const streamed = new ReadableStream<Uint8Array>({ pull: (c) => void (pieces.length ? c.enqueue(pieces.shift()!) : c.close()) });
    const err = await stack.client.putFile("cff-e", "big.bin", streamed).catch((e: DuetError) => e);
    expect(err).toMatchObject({ status: 413 });
    expect((await stack.client.listFiles("cff-e")).entries).toEqual([]);
    // The parts sent before the limit was passed were removed from the container's disk too.
    expect(readdirSync(join(root, "sessions", "sandbox-sandbox-cff-e")).filter((n) => n !== ".duet")).toEqual([]);
  });
});
