import { defineConfig } from "vitest/config";

// Two kinds of tests: the Worker's, inside workerd (worker/vitest.config.ts), and
// everything that runs in Node (shared, sandbox, bots, cross-package e2e).
export default defineConfig({
  test: {
    projects: [
      "worker/vitest.config.ts",
      {
        test: {
          name: "node",
          environment: "node",
          include: ["shared/**/*.test.ts", "sandbox/**/*.test.ts", "bots/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts"],
          exclude: ["**/node_modules/**"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // 2-core machines: e2e files each start workerd; two at a time keeps them honest.
          maxWorkers: 2,
          // Runs after the worker project (groupOrder 0), so the two never compete for the 2 cores.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
