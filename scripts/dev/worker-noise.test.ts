import { describe, expect, it } from "vitest";
import { workerNoise } from "./worker-noise.ts";

/** What wrangler 4.86 printed at a `pnpm dev` start (recorded), with workerd's hang-up notice and a real error. */
const RECORDED = `Using secrets defined in ../../../tmp/nu-home/worker.env
Your Worker has access to the following bindings:
Binding                                       Resource                  Mode
env.DUET_AGENT (DuetAgent)                    Durable Object            local
env.INSTALLATIONS (InstallationStore)         Durable Object            local
env.MODEL_PROVIDER ("openai")                 Environment Variable      local
env.SANDBOX_TOKEN ("(hidden)")                Environment Variable      local
Worker ready on http://127.0.0.1:18931
⎔ Starting local server...
[wrangler:info] Ready on http://127.0.0.1:18931
workerd/server/server.c++:4985: error: Uncaught exception: kj/async-io-unix.c++:186: disconnected: ::writev(fd, iov.begin(), iov.size()): Broken pipe; iovCount = 1
stack: /work/node_modules/@cloudflare/workerd-linux-64/bin/workerd@3a1c2f0 /work/node_modules/@cloudflare/workerd-linux-64/bin/workerd@3a1d1b4
[wrangler:info] GET /health 200 OK (7070ms)
✘ [ERROR] Uncaught TypeError: Cannot read properties of undefined (reading 'id')
    at fetch (worker/src/index.ts:10:3)
workerd/server/server.c++:1200: error: Uncaught exception: kj/filesystem-disk-unix.c++:1703: failed: open(path): Permission denied
stack: /work/bin/workerd@1`.split("\n");

describe("the Worker's output under pnpm dev", () => {
  it("drops wrangler's bindings table and workerd's hang-up notice with its stack, and nothing else", () => {
    const drop = workerNoise();
    const kept = RECORDED.filter((l) => !drop(l));
    expect(kept.join("\n")).not.toMatch(/bindings|Binding|env\.|Broken pipe|iovCount/);
    expect(kept).toEqual([
      "Using secrets defined in ../../../tmp/nu-home/worker.env",
      "Worker ready on http://127.0.0.1:18931",
      "⎔ Starting local server...",
      "[wrangler:info] Ready on http://127.0.0.1:18931",
      "[wrangler:info] GET /health 200 OK (7070ms)",
      // A real error is shown whole, its stack too.
      "✘ [ERROR] Uncaught TypeError: Cannot read properties of undefined (reading 'id')",
      "    at fetch (worker/src/index.ts:10:3)",
      "workerd/server/server.c++:1200: error: Uncaught exception: kj/filesystem-disk-unix.c++:1703: failed: open(path): Permission denied",
      "stack: /work/bin/workerd@1",
    ]);
  });

  it("drops the table in colour too, and a variable named like a table row outside the table is kept", () => {
    const drop = workerNoise();
    expect(drop("\x1b[1mYour Worker has access to the following bindings:\x1b[0m")).toBe(true);
    expect(drop("\x1b[2menv.DUET_AGENT (DuetAgent)   Durable Object   local\x1b[0m")).toBe(true);
    expect(drop("[wrangler:info] Ready")).toBe(false);
    expect(drop("env.X is not set")).toBe(false);
  });
});
