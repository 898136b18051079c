import { defineConfig } from "vitest/config";
import { chatFilesAtOnce, filesAtOnce } from "./test/helpers/files-at-once.ts";
import SpreadSequencer from "./test/helpers/sequencer.ts";
import { WORKER_NODE_TESTS } from "./worker/node-tests.ts";

// Seven kinds of tests: the Worker's, inside workerd (worker/vitest.config.ts); pure
// modules that run in Node (shared, the bots' modules); the Slack, Discord and trace
// files, which start the Worker and a bot and share processes (chat); the other files
// that start the Worker in this process and drive it through the CLI, its API or the
// bots (stack), which share processes too; the built bots run as processes against the
// Worker in this process (built), shared the same way; everything else that runs in Node
// (the sandbox executor on its own, `pnpm dev` as a process, scripts); and the
// reliability suite (faults and hostile input through every real part), which counts what
// it observed across its files and prints the totals at the end. docs/testing.md has
// where the time goes.
//
// The chat project runs first, chatFilesAtOnce() files at a time (eight by default): its
// files wait most of all. Then the others as one queue, filesAtOnce() files at a time
// (the same sequence.groupOrder and maxWorkers here and in worker/vitest.config.ts;
// vitest runs a group's projects together only when their maxWorkers agree): four by
// default on 2 cores, because most files wait on a Worker or a bot starting more than
// they compute; one queue, because a project run after another left a core idle while
// the earlier one's last slow file ran. The sequencer spreads the projects whose files
// each have a process of their own through one another (test/helpers/sequencer.ts).

// The same for every project, read once.
const FILES_AT_ONCE = filesAtOnce();

// The files that start the Worker and a Slack or Discord bot (or a bot's tracing), run in shared processes.
const CHAT_FILES = ["test/slack/**/*.test.ts", "test/discord/**/*.test.ts", "test/traces/**/*.test.ts"];
// The other files that start the Worker in this process (startStack and the stacks built on it), with the
// CLI, the API, the bubblewrap executor or the bots in this process too; they share processes as chat's do.
// Not here: files that set process.env for later files, mock timers, or run `pnpm dev` or a bot as a process.
const STACK_FILES = [
  "test/people/**/*.test.ts",
  // Not npm-dev, which runs `pnpm dev` as a process of its own: no module of it is loaded here to share.
  "test/cli/!(npm-dev).test.ts",
  ...[
    "alarm-restart", "cloudflare-files", "cloudflare-network", "cloudflare-sandbox", "cloudflare-workspace", "files",
    "github-webhook", "live-client", "local-stack", "model-text", "own-secrets", "queue-note", "repo-checkout",
    "repo-git-remote", "repo-pr", "repo-token-logs", "room-disk", "secrets-at-rest", "stack", "summary-restart",
  ].map((name) => `test/${name}.test.ts`),
];
// The files that run the built bots (and their image) as processes against the Worker in this process: what they
// share is wrangler and the harness, loaded once per worker instead of once per file.
const BUILT_FILES = ["test/built/**/*.test.ts"];

interface SharedOptions {
  atOnce?: number;
  groupOrder?: number;
  /** Run after the Worker's bundle is made. */
  globalSetup?: string[];
  testTimeout?: number;
}

/** A project whose files share their worker's loaded modules, and fail when they leave a bot or Worker running. */
function sharedProject(name: string, include: string[], { atOnce = FILES_AT_ONCE, groupOrder = 1, globalSetup = [], testTimeout = 60_000 }: SharedOptions = {}) {
  return {
    test: {
      name,
      environment: "node" as const,
      include,
      exclude: ["**/node_modules/**"],
      // The Worker bundled once for the run, so each file's Worker starts without bundling (docs/testing.md).
      globalSetup: ["test/helpers/worker-bundle-setup.ts", ...globalSetup],
      // Fails a file that leaves a bot or a Worker running, and stops it before the next file starts.
      setupFiles: ["test/helpers/nothing-left-running.ts"],
      // Files share their worker's loaded modules (wrangler, bolt, discord.js, @duet/shared) instead of
      // loading them anew each; docs/testing.md has the figures.
      isolate: false,
      testTimeout,
      hookTimeout: 120_000,
      maxWorkers: atOnce,
      sequence: { groupOrder },
    },
  };
}

export default defineConfig({
  test: {
    // Files start with the projects that give each file a process of their own spread through one another
    // (test/helpers/sequencer.ts says why).
    sequence: { sequencer: SpreadSequencer },
    projects: [
      "worker/vitest.config.ts",
      {
        test: {
          name: "unit",
          environment: "node",
          // Pure modules: no process started, no Worker, nothing left behind but in-process servers they close.
          include: ["shared/**/*.test.ts", "bots/**/*.test.ts", "bench/**/*.test.ts", ...WORKER_NODE_TESTS.map((path) => `worker/src/${path}`)],
          exclude: ["**/node_modules/**"],
          // Files share their worker's loaded modules instead of loading zod, bolt, discord.js and shared anew
          // each (these 67 files, measured on a loaded 2-core machine: vitest's Duration about 140 s isolated, 11 s shared).
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          maxWorkers: FILES_AT_ONCE,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: "node",
          environment: "node",
          include: ["sandbox/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts", "worker/src/sandbox/process-group.test.ts"],
          exclude: ["**/node_modules/**", "test/reliability/**", ...CHAT_FILES, ...STACK_FILES, ...BUILT_FILES],
          // The Worker bundled once for the run, so each file's Worker starts without bundling (docs/testing.md).
          globalSetup: ["test/helpers/worker-bundle-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          maxWorkers: FILES_AT_ONCE,
          sequence: { groupOrder: 1 },
        },
      },
      sharedProject("chat", CHAT_FILES, { atOnce: chatFilesAtOnce(), groupOrder: 0 }),
      sharedProject("stack", STACK_FILES),
      sharedProject("built", BUILT_FILES),
      // The reliability suite: its setup creates the tally every file writes to, and its teardown prints the
      // totals and fails the run when a message was lost.
      sharedProject("reliability", ["test/reliability/**/*.test.ts"], { globalSetup: ["test/reliability/global-setup.ts"], testTimeout: 120_000 }),
    ],
  },
});
