import { savedWorkspaces, standIn, startCloudflareStack } from "../../test/helpers/cloudflare-stack.ts";
import type { Stack } from "../../test/helpers/stack.ts";
import { single, summarize, type Result } from "../stats.ts";

/**
 * Keeping a Cloudflare workspace across sleep (SANDBOX_PROVIDER=cloudflare over
 * the stand-in container and wrangler's local R2): the bytes a turn writes to R2
 * (a turn that changed nothing, a small change in a small workspace, a small
 * change in a 10 MiB one: the whole workspace is one archive), and the time the
 * first command after a crash takes in a 10 MiB workspace (restore included)
 * beside the same command in a warm container. The stand-in's container is the
 * bubblewrap executor reached over HTTP, so times are this machine's, not
 * Cloudflare's; the byte counts are what production writes.
 */

const BIG_BYTES = 10 * 1024 * 1024;
const SAMPLES = 5;

/** The room's saved copy: its size and etag (a new etag is a new write). */
async function saved(stack: Stack, room: string): Promise<{ size: number; etag: string } | undefined> {
  return (await savedWorkspaces(stack)).find((o) => o.key === `workspaces/sandbox-${room}.tar.gz`);
}

/** Bytes the turn wrote to R2: the archive's size when the saved copy was replaced, else 0. */
async function bytesWrittenBy(stack: Stack, room: string, text: string): Promise<number> {
  const before = await saved(stack, room);
  const res = await stack.client.message(room, { text });
  if (res.runs.some((r) => r.exitCode !== 0)) throw new Error(`workspace bench: a command failed: ${JSON.stringify(res.runs)}`);
  const after = await saved(stack, room);
  return after && after.etag !== before?.etag ? after.size : 0;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export async function workspaceKeepSuite(): Promise<Result[]> {
  const started = await startCloudflareStack({}, { fileMaxBytes: 64 * 1024 * 1024 });
  try {
    const { stack } = started;
    const small = "cli-bench-keep-small";
    const big = "cli-bench-keep-big";
    await stack.client.exec(small, { cmd: "mkdir -p src && for i in $(seq 1 20); do echo \"line $i\" > src/f$i.txt; done" });
    await stack.client.exec(big, { cmd: `head -c ${BIG_BYTES} /dev/urandom > data.bin` });

    const unchanged = await bytesWrittenBy(stack, small, "SAY: Looking. <run>ls src</run> <run>cat src/f1.txt</run>");
    const smallChange = await bytesWrittenBy(stack, small, "SAY: Noting. <run>echo note >> src/f1.txt</run>");
    const bigChange = await bytesWrittenBy(stack, big, "SAY: Noting. <run>echo note > note.txt</run>");

    const warm: number[] = [];
    const restored: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      warm.push(await timed(() => stack.client.exec(big, { cmd: "true" })));
      await standIn(stack, "crash", { room: big });
      restored.push(await timed(() => stack.client.exec(big, { cmd: "test -s data.bin" })));
    }
    const note = "stand-in container (bubblewrap over HTTP), wrangler's local R2";
    return [
      single("workspace: R2 bytes, turn that changed nothing", "bytes", unchanged, 1, "2 read-only commands"),
      single("workspace: R2 bytes, small change, 20-file workspace", "bytes", smallChange, 1, "gzipped tar of the whole workspace"),
      single("workspace: R2 bytes, small change, 10 MiB workspace", "bytes", bigChange, 1, "random bytes: the tar does not shrink; every change rewrites it"),
      summarize("workspace: first command after a crash, 10 MiB restored", "ms", restored, note),
      summarize("workspace: the same command, container warm", "ms", warm, note),
    ];
  } finally {
    await started.stop();
  }
}
