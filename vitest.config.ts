import { defineConfig } from "vitest/config";

// Four kinds of tests: the Worker's, inside workerd (worker/vitest.config.ts); pure
// modules that run in Node (shared, the bots' modules); everything else that runs in
// Node (the sandbox executor, cross-package e2e, scripts); and the reliability suite
// (faults and hostile input through every real part), which counts what it observed
// across its files and prints the totals at the end. docs/testing.md has where the time goes.

export default defineConfig({
  test: {
    projects: [
      "worker/vitest.config.ts",
      {
        test: {
          name: "unit",
          environment: "node",
          // Pure modules: no process started, no Worker, nothing left behind but in-process servers they close.
          include: ["shared/**/*.test.ts", "bots/**/*.test.ts", "worker/src/reply/**/*.test.ts", "worker/src/model/prompt.test.ts"],
          exclude: ["**/node_modules/**"],
          // Files share their worker's loaded modules instead of loading zod, bolt, discord.js and shared anew
          // each (these 67 files, measured on a loaded 2-core machine: vitest's Duration about 140 s isolated, 11 s shared).
          isolate: false,
          testTimeout: 60_000,
          // One queue with the node project (same groupOrder, so the same maxWorkers): two files at a time in all.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: "node",
          environment: "node",
          include: ["sandbox/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts", "worker/src/sandbox/process-group.test.ts"],
          exclude: ["**/node_modules/**", "test/reliability/**"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // 2-core machines: e2e files each start workerd; two at a time keeps them honest.
          maxWorkers: 2,
          // Runs after the worker project (groupOrder 0), so the two never compete for the 2 cores;
          // beside the unit project, in one queue.
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: "reliability",
          environment: "node",
          include: ["test/reliability/**/*.test.ts"],
          exclude: ["**/node_modules/**"],
          // Creates the tally every file writes to; its teardown prints the totals and
          // fails the run when a message was lost.
          globalSetup: ["test/reliability/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Each file starts workerd, the bubblewrap executor and a bot: two at a time on 2 cores.
          maxWorkers: 2,
          // Last, after the node project, so it never competes with it for the cores.
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
