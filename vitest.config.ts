import { defineConfig } from "vitest/config";

// Three kinds of tests: the Worker's, inside workerd (worker/vitest.config.ts),
// everything that runs in Node (shared, sandbox, bots, cross-package e2e), and the
// reliability suite (faults and hostile input through every real part), which
// counts what it observed across its files and prints the totals at the end.
export default defineConfig({
  test: {
    projects: [
      "worker/vitest.config.ts",
      {
        test: {
          name: "node",
          environment: "node",
          include: ["shared/**/*.test.ts", "sandbox/**/*.test.ts", "bots/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts", "worker/src/reply/**/*.test.ts", "worker/src/model/prompt.test.ts", "worker/src/sandbox/process-group.test.ts"],
          exclude: ["**/node_modules/**", "test/reliability/**"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // 2-core machines: e2e files each start workerd; two at a time keeps them honest.
          maxWorkers: 2,
          // Runs after the worker project (groupOrder 0), so the two never compete for the 2 cores.
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
