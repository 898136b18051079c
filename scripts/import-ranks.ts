/**
 * The Worker's folders in ranks, lowest first: a folder may import only
 * folders in a lower rank (and its own files); two folders in one rank may
 * not import each other. "." is the Worker's top-level files (config, vars,
 * outcome, …) under every folder but github/; `index.ts`, the entry that exports the
 * Worker, is ranked on its own above them all. Every folder of worker/src has
 * exactly one rank, `scripts/check-imports.ts` fails on an import against
 * them, and ARCHITECTURE.md's picture is checked against them
 * (`scripts/architecture.test.ts`).
 */
export const WORKER_RANKS: readonly (readonly string[])[] = [
  // GitHub's API as a client that knows nothing of the Worker: config.ts reads the App's settings into its type.
  ["github"],
  ["."],
  // Folders that need no other: what a turn is made of (the model, reading its text, the sandbox, tokens)
  // and the Durable Objects beside the rooms (Slack installations, delivery claims, the channel pace).
  ["model", "reply", "sandbox", "usage", "installations", "claims", "pace"],
  // The room's SQLite rows.
  ["storage"],
  // Parts of a room over its rows or the sandbox: policy and audit, schedules, the outbox, files, a running turn's events, pinned facts,
  // the tool servers it turned on (and the workspace's store of them), and a workspace room's listing of its rooms for a home view.
  ["control", "schedules", "outbox", "files", "live", "memory", "tools", "home"],
  ["turns"],
  // The room's Durable Object, which wires its parts.
  ["room"],
  ["http"],
  ["index.ts"],
];

/** Import ranks by the folder they govern, relative to the repository. */
export const RANKS: Readonly<Record<string, readonly (readonly string[])[]>> = { "worker/src": WORKER_RANKS };
