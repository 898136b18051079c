/**
 * The Worker's tests of pure modules, run in Node with the `unit` project
 * (../vitest.config.ts) rather than inside workerd: they import no `cloudflare:`
 * module and need nothing of the runtime. Each file in workerd costs a runtime of
 * its own and its modules served to it, about 1.2 CPU s, where these files' tests
 * take milliseconds; in Node they share one process's modules. Paths under
 * worker/src; a file that comes to need the runtime leaves this list.
 */
export const WORKER_NODE_TESTS = [
  "reply/**/*.test.ts",
  "model/prompt.test.ts",
  "config.test.ts",
  "outcome.test.ts",
  "http/auth.test.ts",
  "live/redact-stream.test.ts",
  "live/sse.test.ts",
  "live/stop.test.ts",
  "memory/recall-rank.test.ts",
  "model/providers.test.ts",
  "model/retry.test.ts",
  "model/sse-data.test.ts",
  "model/workers-ai.test.ts",
  "sandbox/container-id.test.ts",
  "sandbox/container-network.test.ts",
  "sandbox/warm-tracker.test.ts",
  "sandbox/workspace-saves.test.ts",
  "storage/ledger-index.test.ts",
  "tools/mcp-rpc.test.ts",
  "tools/tool-input.test.ts",
  "turns/ask-line.test.ts",
  "turns/replay.test.ts",
  "turns/turn-queue.test.ts",
  "usage/budgets.test.ts",
  "usage/usage-entries.test.ts",
];
