import { createHash, randomBytes } from "node:crypto";
import { startSandboxStack } from "../../test/helpers/sandbox-stack.ts";
import { single, type Result } from "../stats.ts";

/**
 * A 20 MiB file in and out of a room's workspace through the Worker (PUT and
 * GET /api/rooms/:roomId/files, streamed through workerd to the bubblewrap
 * executor), beside the same bytes put to and read from the executor's own
 * files API directly: MB/s each way and the Worker's ratio to the direct path.
 * One run each (the issue asks for one); the bytes are checked on the way back.
 */

const FILE_BYTES = 20 * 1024 * 1024;
/** Pieces the upload is sent in: a client streaming from disk or from a chat platform. */
const PIECE_BYTES = 256 * 1024;

function pieces(bytes: Buffer): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.subarray(at, (at += PIECE_BYTES)));
    },
  });
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

const mbps = (ms: number) => FILE_BYTES / (1024 * 1024) / (ms / 1000);

export async function filesSuite(): Promise<Result[]> {
  const started = await startSandboxStack({ executor: { fileMaxBytes: 32 * 1024 * 1024 } });
  try {
    const { stack, executor } = started;
    const bytes = randomBytes(FILE_BYTES);
    const sha = createHash("sha256").update(bytes).digest("hex");
    const direct = (path: string) => `${executor.url}/api/sessions/sandbox-cli-bench-files-direct/files/${path}`;
    // Both paths warmed once (the Worker's isolate, the workspaces), so neither figure carries a start-up.
    await stack.client.putFile("cli-bench-files", "warm.txt", new TextEncoder().encode("warm"));
    const auth = { authorization: `Bearer ${started.executorToken}` };
    await fetch(direct("warm.txt"), { method: "PUT", headers: auth, body: "warm" }).then((r) => r.text());

    const workerIn = await timed(() => stack.client.putFile("cli-bench-files", "big.bin", pieces(bytes)));
    const workerOut = await timed(async () => Buffer.from(await new Response((await stack.client.getFile("cli-bench-files", "big.bin")).body).arrayBuffer()));
    const directIn = await timed(async () => (await fetch(direct("big.bin"), { method: "PUT", headers: auth, body: pieces(bytes), duplex: "half" } as RequestInit)).json());
    const directOut = await timed(async () => Buffer.from(await (await fetch(direct("big.bin"), { headers: auth })).arrayBuffer()));
    for (const [name, ok] of [
      ["worker in", workerIn.value.sha256 === sha],
      ["worker out", workerOut.value.equals(bytes)],
      ["direct in", (directIn.value as { sha256: string }).sha256 === sha],
      ["direct out", directOut.value.equals(bytes)],
    ] as const) {
      if (!ok) throw new Error(`files: the ${name} bytes differ from what was sent`);
    }
    const note = "20 MiB, one run, streamed in 256 KiB pieces";
    return [
      single("files: 20 MiB into the workspace through the Worker", "MB/s", mbps(workerIn.ms), 1, note),
      single("files: 20 MiB into the workspace, executor direct", "MB/s", mbps(directIn.ms), 1, note),
      single("files: in, Worker / direct", "×", mbps(workerIn.ms) / mbps(directIn.ms), 1, "throughput ratio (1 = as fast as writing to the executor directly)"),
      single("files: 20 MiB out of the workspace through the Worker", "MB/s", mbps(workerOut.ms), 1, note),
      single("files: 20 MiB out of the workspace, executor direct", "MB/s", mbps(directOut.ms), 1, note),
      single("files: out, Worker / direct", "×", mbps(workerOut.ms) / mbps(directOut.ms), 1, "throughput ratio"),
    ];
  } finally {
    await started.stop();
  }
}
