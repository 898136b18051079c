/**
 * What Discord's command picker shows for `/duet` and each subcommand and
 * option (at most 100 characters each, Discord's limit). Keyed by subcommand;
 * `option`, `when` and `file` name the option they describe.
 */
export const DISCORD_COMMAND_WORDS = {
  duet: "Duet, the AI pair programmer with a shared sandbox for this channel",
  ask: { description: "Ask Duet; it may run commands in this channel's sandbox", option: "What should Duet do or explain?", file: "A file for the sandbox (lands in uploads/)" },
  get: { description: "Post a file from this channel's sandbox workspace", option: "Its path in the workspace, e.g. uploads/data.csv" },
  run: { description: "Run a shell command in this channel's sandbox (no AI)", option: "The shell command, e.g. ls -la" },
  history: { description: "Show this room's recent conversation (only you see it)" },
  stop: { description: "Stop Duet's answer in progress in this room" },
  reset: { description: "Forget this room's history and remove its sandbox" },
  policy: {
    description: "Show or set whether Duet runs its commands at once (auto) or waits for Run or Skip (approve)",
    option: "Leave out to see the current policy",
    auto: "auto: run at once",
    approve: "approve: wait for Run or Skip",
  },
  model: { description: "Show the model Duet uses here and the choices, or switch it", option: "Leave out to see the current model" },
  repo: { description: "Show the repository Duet works on here, link one, unlink it, or sync its checkout", option: "owner/name or owner/name@branch to link, unlink to remove, sync to fetch it; leave out to see it" },
  tools: { description: "List the tool servers (MCP), add or remove one, or turn one on or off here", option: "add NAME URL [Header=value…], remove NAME, room on|off NAME; leave out to list" },
  pr: { description: "Propose the repository's change here as a pull request, with Open and Skip", option: "The pull request's title; leave out to name it after what changed" },
  usage: { description: "Model tokens used here today and this week, by person (only you see it)" },
  audit: { description: "Who ran or skipped which commands here (only you see it)" },
  schedule: {
    description: "Ask Duet on its own at set times; each answer is a new message in this channel",
    when: "every 2h, every weekday 09:00 Europe/Berlin, or a cron line",
    option: "What should Duet do or explain each time?",
  },
  schedules: { description: "This room's schedules, with ids and next runs (only you see it)" },
  unschedule: { description: "Remove a schedule", option: "The schedule's id, as /duet schedules lists it" },
  remember: { description: "Pin a fact Duet keeps in mind in every answer here", option: "The fact, e.g. staging runs on port 8443" },
  memory: { description: "The facts pinned here, numbered (only you see it)" },
  forget: { description: "Unpin a fact", option: "Its number, as /duet memory lists it" },
  help: { description: "How to use Duet" },
  /** How the register step names a message command in what it prints. */
  messageCommand: (name: string) => `"${name}" (a message's Apps menu)`,
} as const;
