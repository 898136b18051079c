import { defineConfig } from "vitest/config";

// Three kinds of tests: the Worker's, inside workerd (worker/vitest.config.ts),
// everything that runs in Node (shared, sandbox, bots, cross-package e2e), and the
// reliability suite (faults and hostile input through every real part), which
// counts what it observed across its files and prints the totals at the end.
//
// The three projects run as one queue (the same sequence.groupOrder and maxWorkers),
// so a core freed by one project's last slow file takes the next file of another
// instead of idling until that file ends. Two files at a time in all: most files
// start workerd and a bot, and a 2-core machine keeps them honest at two.
// docs/testing.md has the measured breakdown of where the suite's time goes.
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
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
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
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});
