/**
 * What help says: what each command does (how to type it is each front end's),
 * the room's settings, and on each chat how else to reach Duet there and what
 * a room is.
 */

/** What each command does, keyed by its kind. */
export const COMMAND_PURPOSES = {
  ask: "ask Duet; it answers and may run commands in the sandbox",
  run: "run a shell command in the sandbox yourself, without the AI",
  history: "show the recent conversation",
  reset: "wipe the conversation and destroy the sandbox",
  policy: "show the run policy, or set it: `auto` runs Duet's commands at once, `approve` waits for Run or Skip",
  model: "show the model Duet uses here and the choices, or switch it",
  repo: "show the repository Duet works on here, link one (`owner/name`, optionally `@branch`), or `unlink` it",
  usage: "show the model tokens used here today and this week, by person and model, and the budgets",
  audit: "show who ran or skipped which commands here, and policy changes and resets",
  stop: "stop Duet's answer in progress (anyone here can)",
  get: "post a file from the sandbox's workspace here, e.g. `uploads/data.csv`",
  schedule: "ask Duet on its own at set times (`every 2h`, `every weekday 09:00 Europe/Berlin`, a cron line)",
  schedules: "list this room's schedules with their ids and next runs",
  unschedule: "remove a schedule by its id",
  remember: "pin a fact Duet keeps in mind in every answer here, e.g. which port staging runs on",
  memory: "list the facts pinned here, with who pinned each and when",
  forget: "unpin a fact by its number, as the memory command lists it",
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
  approve: "Run policy here: approve. Commands Duet proposes wait for someone allowed to click Run or Skip.",
  auto: "Run policy here: auto. Duet runs the commands it proposes at once.",
} as const;

/** How else to reach Duet on each chat, and what a room is there. */
export const HELP_MORE = {
  slack: ["You can also mention Duet (`@Duet` _question_) in a channel or a thread, or send it a direct message; it answers in the thread."],
  discord: [
    "• `@Duet` _text_: ask in a channel or a thread; Duet replies to your message",
    "",
    "Each text channel is one room; each thread is a room of its own. Archiving or deleting a thread, or deleting a channel, deletes its room.",
  ],
} as const;
