import { defineConfig } from "vitest/config";

// Five kinds of tests: the Worker's, inside workerd (worker/vitest.config.ts); pure
// modules that run in Node (shared, the bots' modules); the Slack, Discord and trace
// files, which start the Worker and a bot and share processes (chat); everything else
// that runs in Node (the sandbox executor, cross-package e2e, the CLI, scripts); and the
// reliability suite (faults and hostile input through every real part), which counts what
// it observed across its files and prints the totals at the end. docs/testing.md has
// where the time goes.
//
// All five run as one queue, two files at a time (the same sequence.groupOrder and
// maxWorkers here and in worker/vitest.config.ts): most files start workerd and a
// bot, and two at a time on 2 cores keeps them honest; one queue, because a project
// run after another left a core idle while the earlier one's last slow file ran.

// The files that start the Worker and a Slack or Discord bot (or a bot's tracing), run in shared processes.
const CHAT_FILES = ["test/slack/**/*.test.ts", "test/discord/**/*.test.ts", "test/traces/**/*.test.ts"];

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
          hookTimeout: 120_000,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "node",
          environment: "node",
          include: ["sandbox/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts", "worker/src/sandbox/process-group.test.ts"],
          exclude: ["**/node_modules/**", "test/reliability/**", ...CHAT_FILES],
          // The Worker bundled once for the run, so each file's Worker starts without bundling (docs/testing.md).
          globalSetup: ["test/helpers/worker-bundle-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "chat",
          environment: "node",
          include: CHAT_FILES,
          exclude: ["**/node_modules/**"],
          globalSetup: ["test/helpers/worker-bundle-setup.ts"],
          // Fails a file that leaves a bot or a Worker running, and stops it before the next file starts.
          setupFiles: ["test/helpers/nothing-left-running.ts"],
          // Files share their worker's loaded modules (wrangler, bolt, discord.js, @duet/shared) instead of
          // loading them anew each; docs/testing.md has the figures.
          isolate: false,
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
          // fails the run when a message was lost. The Worker is bundled once, as for node.
          globalSetup: ["test/helpers/worker-bundle-setup.ts", "test/reliability/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});
