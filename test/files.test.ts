import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect } from "node:net";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { setTimeout as wait } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { DuetError } from "@duet/shared";
import { runCli } from "../scripts/duet-cli.ts";
import { startedForTests } from "./helpers/lifecycle.ts";
import { startSandboxStack } from "./helpers/sandbox-stack.ts";
import type { Stack } from "./helpers/stack.ts";

/**
 * Workspace files through the real Worker (wrangler) and the real bubblewrap
 * executor: the files routes, uploads in the model's context, <attach>, the
 * shell that remembers, and `duet get` / `duet put`.
 */
const FILE_MAX = 2 * 1024 * 1024;

describe("workspace files through the Worker", () => {
  let stack: Stack;
  let root: string;
  let local: string;
  const HOST_SECRET = `host-only-${randomBytes(8).toString("hex")}`;
  startedForTests(
    async () => {
      const started = await startSandboxStack({
        // The executor's own limit is looser, so a 413 here is the Worker's: its count of a streamed upload is what refuses.
        executor: { fileMaxBytes: FILE_MAX * 4 },
        wire: ({ url, token }) => ({ SANDBOX_URL: url, SANDBOX_TOKEN: token, DUET_FILE_MAX_BYTES: String(FILE_MAX) }),
      });
      local = mkdtempSync(join(tmpdir(), "duet-files-e2e-"));
      writeFileSync(join(local, "secret.txt"), HOST_SECRET);
      return { ...started, stop: async () => (rmSync(local, { recursive: true, force: true }), started.stop()) };
    },
    (started) => ({ stack, root } = started),
  );

  /**
   * A PUT written by hand on a socket, so its Content-Length can be one fetch refuses
   * to send; the status line and body of the answer, or "" when none came.
   */
  const handWritten = (room: string, path: string, contentLength: string, body: string) =>
    new Promise<{ status: string; body: string }>((resolve) => {
      const { hostname, port } = new URL(stack.workerUrl);
      const head = `PUT /api/rooms/${room}/files/${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${stack.token}\r\nContent-Length: ${contentLength}\r\nConnection: close\r\n\r\n`;
      const socket = connect(Number(port), hostname, () => socket.end(head + body));
      let answer = "";
      const done = () => resolve({ status: answer.split("\r\n")[0] ?? "", body: answer.split("\r\n\r\n").slice(1).join("\r\n\r\n") });
      socket.on("data", (d: Buffer) => (answer += d));
      socket.once("close", done);
      socket.once("error", done);
    });

  const raw = (room: string, path: string, init: RequestInit = {}) =>
    fetch(`${stack.workerUrl}/api/rooms/${room}/files/${path}`, { ...init, headers: { authorization: `Bearer ${stack.token}`, ...init.headers } });

  it("a file put streams in and comes back byte for byte; the folder lists it", async () => {
    // Past the executor's 1 MiB reads, so it comes back in more than one piece.
    const bytes = randomBytes(1_700_000);
    const parts = [bytes.subarray(0, 300_000), bytes.subarray(300_000)];
    const body = new ReadableStream<Uint8Array>({ pull: (c) => void (parts.length ? c.enqueue(parts.shift()!) : c.close()) });
    const written = await stack.client.putFile("files-a", "out/blob.bin", body);
    expect(written).toEqual({ path: "out/blob.bin", bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") });
    const file = await stack.client.getFile("files-a", "out/blob.bin");
    expect(file).toMatchObject({ bytes: bytes.length, type: "application/octet-stream" });
    expect(Buffer.from(await new Response(file.body).arrayBuffer()).equals(bytes)).toBe(true);
    expect((await stack.client.listFiles("files-a", "out")).entries).toMatchObject([{ path: "out/blob.bin", bytes: bytes.length, kind: "file" }]);
  });

  it("an upload lands in uploads/, a taken name gets a number, and the next turn's model is told who shared what", async () => {
    const csv = "a,b\n1,2\n3,4\n";
    await stack.client.putFile("files-b", "uploads/data.csv", new TextEncoder().encode(csv), { userId: "U1" });
    const second = await stack.client.putFile("files-b", "uploads/data.csv", new TextEncoder().encode(csv), { userId: "U2" });
    expect(second.path).toBe("uploads/data-1.csv");
    const res = await stack.client.message("files-b", { text: "SAY: Counting. <run>wc -l uploads/data.csv</run>", userId: "U1" });
    expect(res.runs[0]).toMatchObject({ exitCode: 0, stdout: "3 uploads/data.csv\n" });
    const told = stack.model.calls.at(-1)!.messages.map((m) => m.content).join("\n");
    expect(told).toContain(`U1 shared data.csv (${csv.length} bytes, text/csv) at uploads/data.csv`);
    expect(told).toContain(`U2 shared data-1.csv (${csv.length} bytes, text/csv) at uploads/data-1.csv`);
    // Told once: the turn after does not repeat them.
    await stack.client.message("files-b", { text: "SAY: ok" });
    expect(stack.model.calls.at(-1)!.messages.at(-2)!.content).not.toContain("shared data.csv");
  });

  it("<attach> lists a file the commands made after they ran; a missing one is a note, not an attachment", async () => {
    const res = await stack.client.message("files-c", { text: "SAY: Drawing. <run>printf 'PNG-BYTES' > chart.png</run> <attach>chart.png</attach> <attach>nope.png</attach>" });
    expect(res.attachments).toEqual([{ path: "chart.png", bytes: 9, type: "image/png" }]);
    expect(res.reply).toContain("nope.png was not attached: there is no such file in the workspace.");
    expect(await (await raw("files-c", "chart.png")).text()).toBe("PNG-BYTES");
  });

  it("cd and export carry to the next command, and a reset starts clean", async () => {
    await stack.client.exec("files-d", { cmd: "mkdir -p proj && cd proj && export MODE=fast" });
    expect((await stack.client.exec("files-d", { cmd: 'pwd; echo "$MODE"' })).result.stdout).toBe("/workspace/proj\nfast\n");
    await stack.client.cleanup("files-d");
    expect((await stack.client.exec("files-d", { cmd: 'pwd; echo "[$MODE]"' })).result.stdout).toBe("/workspace\n[]\n");
  });

  it("refuses '..', absolute and control-character paths with 400, and writes nothing", async () => {
    for (const path of ["..%2F..%2Fescape.txt", "%2Fetc%2Fpasswd", "bad%0Aname.txt", "nul%00.txt"]) {
      const res = await raw("files-e", path, { method: "PUT", body: "x" });
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { details: { path: string[] } }).details.path[0]).toMatch(/path/);
    }
    expect((await stack.client.listFiles("files-e")).entries).toEqual([]);
  });

  it("refuses a name over 255 bytes with 400 saying so, and writes nothing", async () => {
    const res = await raw("files-i", `dir/${"n".repeat(300)}.txt`, { method: "PUT", body: "x" });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { details: { path: string[] } };
    expect(body.details.path).toEqual(["each file or folder name in the path must be at most 255 bytes"]);
    expect(JSON.stringify(body)).not.toContain("/proc/");
    expect((await stack.client.listFiles("files-i")).entries).toEqual([]);
  });

  it("a symlink the sandbox made to a host file never brings the host's bytes back", async () => {
    await stack.client.exec("files-f", { cmd: `ln -s ${join(local, "secret.txt")} notes.txt && ln -s ${local} host` });
    for (const path of ["notes.txt", "host/secret.txt"]) {
      const res = await raw("files-f", path);
      expect(res.status, path).toBe(400);
      expect(await res.text()).not.toContain(HOST_SECRET);
    }
  });

  it("a file over DUET_FILE_MAX_BYTES is 413 and nothing is written (declared or streamed)", async () => {
    const big = randomBytes(FILE_MAX + 1);
    await expect(stack.client.putFile("files-g", "big.bin", big, { bytes: big.length })).rejects.toMatchObject({ code: "payload_too_large", status: 413 });
    const parts = [big.subarray(0, 1_000_000), big.subarray(1_000_000)];
    const streamed = new ReadableStream<Uint8Array>({ pull: (c) => void (parts.length ? c.enqueue(parts.shift()!) : c.close()) });
    const err = await stack.client.putFile("files-g", "big.bin", streamed).catch((e: DuetError) => e);
    expect(err).toMatchObject({ status: 413 });
    expect((await stack.client.listFiles("files-g")).entries).toEqual([]);
    // The executor drops the torn-down upload's temporary file once it sees the request end.
    const workspace = join(root, "sessions", "sandbox-files-g");
    while (existsSync(workspace) && readdirSync(workspace).length > 0) await wait(20);
  });

  it("a Content-Length that is not a length is refused by the runtime before the Worker runs: 500 with no detail, nothing written", async () => {
    // workerd's HTTP parser answers these itself (Cloudflare's edge answers 400); the Worker never sees them.
    for (const length of ["-1", "abc", "5, 6", "+5", "0x5", "5.0"]) {
      expect(await handWritten("files-cl", `bad.txt`, length, "hello"), length).toEqual({ status: "HTTP/1.1 500 Internal Server Error", body: "Internal Server Error" });
    }
    expect((await stack.client.listFiles("files-cl")).entries).toEqual([]);
    // A length with leading zeros is still a length; the next request is served as usual.
    expect((await handWritten("files-cl", "good.txt", "05", "hello")).status).toBe("HTTP/1.1 200 OK");
    expect(await (await raw("files-cl", "good.txt")).text()).toBe("hello");
  });

  it("duet put and duet get move a file both ways", async () => {
    const source = join(local, "report.txt");
    writeFileSync(source, "line one\nline two\n");
    const put = await cli("put", "files-h", source);
    expect(put).toMatchObject({ code: 0 });
    expect(put.out).toContain("→ uploads/report.txt (18 bytes");
    const target = join(local, "back.txt");
    const got = await cli("get", "files-h", "uploads/report.txt", target);
    expect(got).toMatchObject({ code: 0 });
    expect(readFileSync(target, "utf8")).toBe("line one\nline two\n");
    const missing = await cli("get", "files-h", "nope.txt", join(local, "nope.txt"));
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("no such file");
  });

  it("duet get refuses '..', absolute and control-character paths with the Worker's words, and saves nothing", async () => {
    await stack.client.message("files-i", { text: "SAY: history to leak" });
    const here = mkdtempSync(join(local, "refused-"));
    for (const [path, why] of [
      ["../messages", "path must not contain '..'"],
      ["a/../../messages", "path must not contain '..'"],
      ["/etc/passwd", "path must be relative to the workspace, not absolute"],
      ["bad\nname", "path must not contain NUL or control characters"],
    ]) {
      const got = await cliIn(here, "get", "files-i", path);
      expect(got, path).toMatchObject({ code: 1, err: `duet: ${why}\n` });
    }
    expect(readdirSync(here)).toEqual([]);
  });

  it("duet get and put read and write paths from the folder npm was run in (INIT_CWD), not the repository root", async () => {
    const here = mkdtempSync(join(local, "typed-in-"));
    writeFileSync(join(here, "notes.txt"), "from the caller's folder\n");
    const put = await cliIn(here, "put", "files-j", "notes.txt");
    expect(put).toMatchObject({ code: 0 });
    expect(put.out).toContain("→ uploads/notes.txt");
    const got = await cliIn(here, "get", "files-j", "uploads/notes.txt", "copy.txt");
    expect(got).toMatchObject({ code: 0 });
    expect(readFileSync(join(here, "copy.txt"), "utf8")).toBe("from the caller's folder\n");
    // Without OUT, the file's own name in that folder; notes.txt is taken (the one put), so it gets a number, never replacing it.
    const again = await cliIn(here, "get", "files-j", "uploads/notes.txt");
    expect(again.out).toContain(join(here, "notes-1.txt"));
    expect(readdirSync(here).sort()).toEqual(["copy.txt", "notes-1.txt", "notes.txt"]);
  });

  it("duet ask names the files the answer attached and saves them under duet-files/ in the caller's folder, never replacing one", async () => {
    const here = mkdtempSync(join(local, "attach-"));
    const ask = "SAY: Here is the file. <run>printf 'a,b\\n1,2\\n' > out.csv</run> <attach>out.csv</attach>";
    const first = await cliIn(here, "ask", "files-k", ask);
    expect(first).toMatchObject({ code: 0 });
    expect(first.out).toContain(`Attached out.csv → saved as ${join("duet-files", "out.csv")} (8 bytes)`);
    expect(readFileSync(join(here, "duet-files", "out.csv"), "utf8")).toBe("a,b\n1,2\n");
    const second = await cliIn(here, "ask", "files-k", ask);
    expect(second.out).toContain(`Attached out.csv → saved as ${join("duet-files", "out-1.csv")} (8 bytes)`);
    expect(readdirSync(join(here, "duet-files")).sort()).toEqual(["out-1.csv", "out.csv"]);
  });

  /** `duet ...` as npm runs it: from the repository root, with INIT_CWD the folder the person typed in. */
  function cliIn(dir: string, ...argv: string[]) {
    return cliWith({ INIT_CWD: dir }, argv);
  }

  function cli(...argv: string[]) {
    return cliWith({}, argv);
  }

  async function cliWith(env: Record<string, string>, argv: string[]): Promise<{ code: number; out: string; err: string }> {
    const out = new PassThrough();
    const err = new PassThrough();
    const chunks = { out: "", err: "" };
    out.on("data", (d) => (chunks.out += d));
    err.on("data", (d) => (chunks.err += d));
    const code = await runCli(argv, { env: { DUET_WORKER_URL: stack.workerUrl, DUET_API_TOKEN: stack.token, NO_COLOR: "1", ...env }, stdin: new PassThrough(), stdout: out, stderr: err });
    return { code, ...chunks };
  }
});
