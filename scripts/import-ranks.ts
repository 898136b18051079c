/**
 * The Worker's folders in ranks, lowest first: a folder may import only
 * folders in a lower rank (and its own files); two folders in one rank may
 * not import each other. "." is the Worker's top-level files (config, vars,
 * outcome, …) under every folder but github/ and git-remote/; `index.ts`, the entry that exports the
 * Worker, is ranked on its own above them all. Every folder of worker/src has
 * exactly one rank, `scripts/check-imports.ts` fails on an import against
 * them, and ARCHITECTURE.md's picture is checked against them
 * (`scripts/architecture.test.ts`).
 */
export const WORKER_RANKS: readonly (readonly string[])[] = [
  // GitHub's API, and a plain git remote's, as clients that know nothing of the Worker: config.ts reads their settings into their types.
  ["github", "git-remote"],
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

/*
 * The ranks below place the folders only: each top-level file is a unit of its
 * own, free to sit under or over any folder, and `scripts/check-imports.ts`
 * fails on a loop through one (a folder that imports a top-level file that
 * imports the folder back) as on a loop between folders.
 */

/** shared/src's folders, lowest first. */
export const SHARED_RANKS: readonly (readonly string[])[] = [
  // What any chat text is cleaned of, and the readers of environment settings.
  ["text", "config"],
  // What both sandboxes share (the network policies, the shell state a command keeps); spans and their export.
  ["sandbox", "trace"],
  // What the wire between the bots and the Worker carries: its schemas, limits, errors and room ids.
  ["wire"],
  // Text the bots and the Worker show (answers, runs, redaction, with a trace's ref), files' names and limits, the
  // Worker's settings, and what only the bots' processes run (health and metrics, start and stop, answers in flight).
  ["format", "files", "settings", "bot"],
  // The sentences a person reads, and a live answer's pages.
  ["words", "live"],
  // Chat commands read from text, and the Worker's client.
  ["commands", "client"],
  // The one chat flow every front end runs.
  ["flow"],
  // The bots' side of the outbox: the delivery loop, delivery claims between replicas and the replicas' shared pace.
  ["outbox"],
];

/** The Slack bot's folders, lowest first. */
export const SLACK_RANKS: readonly (readonly string[])[] = [
  // Installations and their tokens, and the ack front that answers Slack before bolt.
  ["oauth", "ack-front"],
  // What the room's controls show and who may use them, files in and out, and a live answer's message.
  ["control", "files", "live"],
  // The App Home tab (which shows the controls), "Ask Duet about this" and the agent pane.
  ["home", "ask-about", "pane"],
  // What a click on a Run/Skip, Open/Skip or memory button does.
  ["clicks"],
];

/** The Discord bot's folders, lowest first. */
export const DISCORD_RANKS: readonly (readonly string[])[] = [
  // What the room's controls show and who may use them, files in and out, and a live answer's message.
  ["control", "files", "live"],
  // What a click on a Run/Skip, Open/Skip or memory button does, and "Ask Duet" on a message.
  ["clicks", "ask-duet"],
];

/** Import ranks by the folder they govern, relative to the repository. */
export const RANKS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  "worker/src": WORKER_RANKS,
  "shared/src": SHARED_RANKS,
  "bots/slack/src": SLACK_RANKS,
  "bots/discord/src": DISCORD_RANKS,
};
