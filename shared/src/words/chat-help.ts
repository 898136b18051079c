/**
 * What help says: what each command does (how to type it is each front end's),
 * the room's settings, and on each chat how else to reach Duet there and what
 * a room is.
 */

/** What each command does, keyed by its kind. */
export const COMMAND_PURPOSES = {
  ask: "ask Duet; it may run commands in the sandbox",
  run: "run a shell command in the sandbox",
  history: "show the recent conversation",
  reset: "wipe the conversation and destroy the sandbox",
  policy: "show or set the run policy: `approve` waits for a click",
  model: "show or switch the model Duet uses here",
  repo: "show, link, `unlink` or `sync` the repository here",
  pr: "propose the repo's change as a pull request",
  tools: "list, add or remove tool servers (MCP), or turn one on or off here",
  usage: "show tokens, cost and budgets, today and this week",
  audit: "show who ran, skipped or changed what",
  stop: "stop Duet's answer (anyone here can)",
  get: "post a file from the sandbox here",
  schedule: "ask Duet at set times",
  schedules: "list the schedules here, with their ids",
  unschedule: "remove a schedule by its id",
  remember: "pin a fact Duet keeps in mind here",
  memory: "list the facts pinned here",
  forget: "unpin a fact by its number",
  help: "show this help",
} as const;

/** Added to a purpose where help is shown. */
export const PURPOSE_NOTES = {
  onlyYou: "(only you see it)",
  scheduleInChat: "each answer is a new message here",
  scheduleInTerminal: "each answer is kept in the room's history",
} as const;

/** The room's run policy, as help states it. */
export const POLICY_LINES = {
  approve: "Run policy here: approve. Duet's commands wait for someone allowed to click Run or Skip.",
  auto: "Run policy here: auto. Duet runs the commands it proposes at once.",
} as const;

/** How else to reach Duet on each chat, and what a room is there. */
export const HELP_MORE = {
  slack: ["You can also mention Duet (`@Duet` _question_) in a channel or a thread, or send it a direct message; it answers in the thread."],
  discord: [
    "• `@Duet` _text_: ask in a channel or a thread; Duet replies to your message",
    "",
    "Each channel and each thread is a room; deleting it (or archiving a thread) deletes the room.",
  ],
} as const;
