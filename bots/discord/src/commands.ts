import { ApplicationCommandType, ApplicationIntegrationType, ContextMenuCommandBuilder, InteractionContextType, SlashCommandBuilder } from "discord.js";
import { ASK_ABOUT_WORDS, DISCORD_COMMAND_WORDS as WORDS, FACT_MAX_CHARS, WHEN_MAX_CHARS } from "@duet/shared";

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
  pr: { name: "pr", option: "title" },
  tools: { name: "tools", option: "what" },
  usage: { name: "usage" },
  audit: { name: "audit" },
  schedule: { name: "schedule", when: "when", option: "prompt" },
  schedules: { name: "schedules" },
  unschedule: { name: "unschedule", option: "id" },
  remember: { name: "remember", option: "fact" },
  memory: { name: "memory" },
  forget: { name: "forget", option: "number" },
  help: { name: "help" },
} as const;

export type SubcommandName = keyof typeof SUBCOMMANDS;

/** Owner, name and branch at their limits with "/" and "@" between: Discord refuses longer before the bot sees it, and the bot checks the parts. */
const REPO_OPTION_MAX_CHARS = 400;

/** A pull request's title: room past the Worker's 200, so an overlong one gets the rule rather than Discord's silent cut. */
const PR_OPTION_MAX_CHARS = 1_000;

/** Discord caps string options at 6,000 characters, below the Worker's own limits. */
const OPTION_MAX_CHARS = 6_000;

export function duetCommand() {
  return (
    new SlashCommandBuilder()
      .setName(COMMAND_NAME)
      .setDescription(WORDS.duet)
      // Rooms are per channel in a server: no DMs, no user-installed app contexts.
      .setContexts(InteractionContextType.Guild)
      .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.ask.name)
          .setDescription(WORDS.ask.description)
          .addStringOption((o) =>
            o.setName(SUBCOMMANDS.ask.option).setDescription(WORDS.ask.option).setRequired(true).setMaxLength(OPTION_MAX_CHARS),
          )
          .addAttachmentOption((o) => o.setName(SUBCOMMANDS.ask.file).setDescription(WORDS.ask.file).setRequired(false)),
      )
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.get.name)
          .setDescription(WORDS.get.description)
          .addStringOption((o) => o.setName(SUBCOMMANDS.get.option).setDescription(WORDS.get.option).setRequired(true).setMaxLength(4096)),
      )
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.run.name)
          .setDescription(WORDS.run.description)
          .addStringOption((o) =>
            o.setName(SUBCOMMANDS.run.option).setDescription(WORDS.run.option).setRequired(true).setMaxLength(OPTION_MAX_CHARS),
          ),
      )
      .addSubcommand((s) => s.setName(SUBCOMMANDS.history.name).setDescription(WORDS.history.description))
      .addSubcommand((s) => s.setName(SUBCOMMANDS.stop.name).setDescription(WORDS.stop.description))
      .addSubcommand((s) => s.setName(SUBCOMMANDS.reset.name).setDescription(WORDS.reset.description))
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.policy.name)
          .setDescription(WORDS.policy.description)
          .addStringOption((o) =>
            o
              .setName(SUBCOMMANDS.policy.option)
              .setDescription(WORDS.policy.option)
              .setRequired(false)
              .addChoices({ name: WORDS.policy.auto, value: "auto" }, { name: WORDS.policy.approve, value: "approve" }),
          ),
      )
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.model.name)
          .setDescription(WORDS.model.description)
          .addStringOption((o) => o.setName(SUBCOMMANDS.model.option).setDescription(WORDS.model.option).setRequired(false).setMaxLength(200)),
      )
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.repo.name)
          .setDescription(WORDS.repo.description)
          .addStringOption((o) => o.setName(SUBCOMMANDS.repo.option).setDescription(WORDS.repo.option).setRequired(false).setMaxLength(REPO_OPTION_MAX_CHARS)),
      )
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.pr.name)
          .setDescription(WORDS.pr.description)
          // Longer titles reach the bot (Discord's cap is wider), which says the rule in one line.
          .addStringOption((o) => o.setName(SUBCOMMANDS.pr.option).setDescription(WORDS.pr.option).setRequired(false).setMaxLength(PR_OPTION_MAX_CHARS)),
      )
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.tools.name)
          .setDescription(WORDS.tools.description)
          // Headers may be long keys; the bot reads and limits the rest.
          .addStringOption((o) => o.setName(SUBCOMMANDS.tools.option).setDescription(WORDS.tools.option).setRequired(false).setMaxLength(OPTION_MAX_CHARS)),
      )
      .addSubcommand((s) => s.setName(SUBCOMMANDS.usage.name).setDescription(WORDS.usage.description))
      .addSubcommand((s) => s.setName(SUBCOMMANDS.audit.name).setDescription(WORDS.audit.description))
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.schedule.name)
          .setDescription(WORDS.schedule.description)
          .addStringOption((o) =>
            o
              .setName(SUBCOMMANDS.schedule.when)
              .setDescription(WORDS.schedule.when)
              .setRequired(true)
              .setMaxLength(WHEN_MAX_CHARS),
          )
          .addStringOption((o) =>
            o.setName(SUBCOMMANDS.schedule.option).setDescription(WORDS.schedule.option).setRequired(true).setMaxLength(OPTION_MAX_CHARS),
          ),
      )
      .addSubcommand((s) => s.setName(SUBCOMMANDS.schedules.name).setDescription(WORDS.schedules.description))
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.unschedule.name)
          .setDescription(WORDS.unschedule.description)
          .addStringOption((o) => o.setName(SUBCOMMANDS.unschedule.option).setDescription(WORDS.unschedule.option).setRequired(true).setMaxLength(32)),
      )
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.remember.name)
          .setDescription(WORDS.remember.description)
          .addStringOption((o) => o.setName(SUBCOMMANDS.remember.option).setDescription(WORDS.remember.option).setRequired(true).setMaxLength(FACT_MAX_CHARS)),
      )
      .addSubcommand((s) => s.setName(SUBCOMMANDS.memory.name).setDescription(WORDS.memory.description))
      .addSubcommand((s) =>
        s
          .setName(SUBCOMMANDS.forget.name)
          .setDescription(WORDS.forget.description)
          .addStringOption((o) => o.setName(SUBCOMMANDS.forget.option).setDescription(WORDS.forget.option).setRequired(true).setMaxLength(4)),
      )
      .addSubcommand((s) => s.setName(SUBCOMMANDS.help.name).setDescription(WORDS.help.description))
  );
}

/** "Ask Duet" in a message's Apps menu (a message context-menu command: a name, no description). */
export function askDuetCommand() {
  return new ContextMenuCommandBuilder()
    .setName(ASK_ABOUT_WORDS.command)
    .setType(ApplicationCommandType.Message)
    .setContexts(InteractionContextType.Guild)
    .setIntegrationTypes(ApplicationIntegrationType.GuildInstall);
}

/** The JSON bodies `PUT .../commands` takes: `/duet` and "Ask Duet". */
export function commandDefinitions() {
  return [duetCommand().toJSON(), askDuetCommand().toJSON()];
}
