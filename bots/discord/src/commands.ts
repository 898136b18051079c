import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder } from "discord.js";
import { WHEN_MAX_CHARS } from "@duet/shared";

/**
 * The `/duet` slash command: one command with subcommands, so the bot takes a
 * single name in a server's command list. `register.ts` sends these
 * definitions to Discord; the interaction handler reads the same names.
 */

export const COMMAND_NAME = "duet";

export const SUBCOMMANDS = {
  ask: { name: "ask", option: "prompt", file: "file" },
  get: { name: "get", option: "path" },
  run: { name: "run", option: "command" },
  history: { name: "history" },
  reset: { name: "reset" },
  stop: { name: "stop" },
  policy: { name: "policy", option: "mode" },
  model: { name: "model", option: "name" },
  repo: { name: "repo", option: "name" },
  usage: { name: "usage" },
  audit: { name: "audit" },
  schedule: { name: "schedule", when: "when", option: "prompt" },
  schedules: { name: "schedules" },
  unschedule: { name: "unschedule", option: "id" },
  help: { name: "help" },
} as const;

export type SubcommandName = keyof typeof SUBCOMMANDS;

/** Owner, name and branch at their limits with "/" and "@" between: Discord refuses longer before the bot sees it, and the bot checks the parts. */
const REPO_OPTION_MAX_CHARS = 400;

/** Discord caps string options at 6,000 characters, below the Worker's own limits. */
const OPTION_MAX_CHARS = 6_000;

export function duetCommand() {
  return (
    new SlashCommandBuilder()
      .setName(COMMAND_NAME)
      .setDescription("Duet, the AI pair programmer with a shared sandbox for this channel")
      // Rooms are per channel in a server: no DMs, no user-installed app contexts.
      .setContexts(InteractionContextType.Guild)
      .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.ask.name)
          .setDescription("Ask Duet; it may run commands in this channel's sandbox")
          .addStringOption((o) =>
            o.setName(SUBCOMMANDS.ask.option).setDescription("What should Duet do or explain?").setRequired(true).setMaxLength(OPTION_MAX_CHARS),
          )
          .addAttachmentOption((o) => o.setName(SUBCOMMANDS.ask.file).setDescription("A file for the sandbox (lands in uploads/)").setRequired(false)),
      )
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.get.name)
          .setDescription("Post a file from this channel's sandbox workspace")
          .addStringOption((o) => o.setName(SUBCOMMANDS.get.option).setDescription("Its path in the workspace, e.g. uploads/data.csv").setRequired(true).setMaxLength(4096)),
      )
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.run.name)
          .setDescription("Run a shell command in this channel's sandbox (no AI)")
          .addStringOption((o) =>
            o.setName(SUBCOMMANDS.run.option).setDescription("The shell command, e.g. ls -la").setRequired(true).setMaxLength(OPTION_MAX_CHARS),
          ),
      )
      .addSubcommand((s) => s.setName(SUBCOMMANDS.history.name).setDescription("Show this room's recent conversation (only you see it)"))
      .addSubcommand((s) => s.setName(SUBCOMMANDS.stop.name).setDescription("Stop Duet's answer in progress in this room"))
      .addSubcommand((s) => s.setName(SUBCOMMANDS.reset.name).setDescription("Forget this room's history and remove its sandbox"))
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.policy.name)
          .setDescription("Show or set whether Duet runs its commands at once (auto) or waits for Run or Skip (approve)")
          .addStringOption((o) =>
            o
              .setName(SUBCOMMANDS.policy.option)
              .setDescription("Leave out to see the current policy")
              .setRequired(false)
              .addChoices({ name: "auto: run at once", value: "auto" }, { name: "approve: wait for Run or Skip", value: "approve" }),
          ),
      )
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.model.name)
          .setDescription("Show the model Duet uses here and the choices, or switch it")
          .addStringOption((o) => o.setName(SUBCOMMANDS.model.option).setDescription("Leave out to see the current model").setRequired(false).setMaxLength(200)),
      )
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.repo.name)
          .setDescription("Show the repository Duet works on here, link one, or unlink it")
          .addStringOption((o) =>
            o
              .setName(SUBCOMMANDS.repo.option)
              .setDescription("owner/name or owner/name@branch to link, unlink to remove; leave out to see it")
              .setRequired(false)
              .setMaxLength(REPO_OPTION_MAX_CHARS),
          ),
      )
      .addSubcommand((s) => s.setName(SUBCOMMANDS.usage.name).setDescription("Model tokens used here today and this week, by person (only you see it)"))
      .addSubcommand((s) => s.setName(SUBCOMMANDS.audit.name).setDescription("Who ran or skipped which commands here (only you see it)"))
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.schedule.name)
          .setDescription("Ask Duet on its own at set times; each answer is a new message in this channel")
          .addStringOption((o) =>
            o
              .setName(SUBCOMMANDS.schedule.when)
              .setDescription("every 2h, every weekday 09:00 Europe/Berlin, or a cron line")
              .setRequired(true)
              .setMaxLength(WHEN_MAX_CHARS),
          )
          .addStringOption((o) =>
            o.setName(SUBCOMMANDS.schedule.option).setDescription("What should Duet do or explain each time?").setRequired(true).setMaxLength(OPTION_MAX_CHARS),
          ),
      )
      .addSubcommand((s) => s.setName(SUBCOMMANDS.schedules.name).setDescription("This room's schedules, with ids and next runs (only you see it)"))
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.unschedule.name)
          .setDescription("Remove a schedule")
          .addStringOption((o) => o.setName(SUBCOMMANDS.unschedule.option).setDescription("The schedule's id, as /duet schedules lists it").setRequired(true).setMaxLength(32)),
      )
      .addSubcommand((s) => s.setName(SUBCOMMANDS.help.name).setDescription("How to use Duet"))
  );
}

/** The JSON bodies `PUT .../commands` takes. */
export function commandDefinitions() {
  return [duetCommand().toJSON()];
}

export const DM_ANSWER = "Duet works in servers: add it to a server, then `@Duet` it in a channel or use `/duet ask`.";
