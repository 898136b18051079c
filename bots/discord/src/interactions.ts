import { DiscordAPIError, MessageFlags, type ChatInputCommandInteraction, type Interaction } from "discord.js";
import { answersPrivately, guardOf, help, readModel, readRunPolicy, runCommand, sanitizeChatText, type DuetCommand } from "@duet/shared";
import { COMMAND_NAME, DM_ANSWER, SUBCOMMANDS } from "./commands.ts";
import { permitFor } from "./control/access.ts";
import { commandUserName } from "./people.ts";
import { handleApprovalClick, isApprovalClick } from "./control/approval-click.ts";
import type { BotDeps } from "./deps.ts";
import { roomHere } from "./rooms.ts";
import { interactionSurface } from "./surfaces.ts";

/**
 * `/duet` interactions: defer at once (Discord's 3 s), then the shared flow for
 * the command edits the deferred reply. A replayed interaction cannot be
 * deferred twice (Discord answers 40060), so it never reaches the Worker a
 * second time; the interaction id is also the Worker's idempotency key.
 */

/** Discord error codes that mean "this interaction is gone or already answered": stop quietly. */
const ALREADY_HANDLED = new Set([10062 /* unknown interaction */, 40060 /* already acknowledged */]);

export async function handleInteraction(interaction: Interaction, deps: BotDeps): Promise<void> {
  if (isApprovalClick(interaction)) return handleApprovalClick(interaction, deps);
  if (!interaction.isChatInputCommand()) return;
  const command = readCommand(interaction);
  const permit = permitFor(deps.access, interaction);
  // A refusal is for the asker only, and Discord fixes a reply's visibility when it is deferred.
  const guard = guardOf(command);
  const refused = guard ? (await permit(guard)) !== null : false;
  const ephemeral = answersPrivately(command.kind) || refused || (command.kind === "policy" && !command.runPolicy) || (command.kind === "model" && !command.model);
  try {
    await interaction.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
  } catch (err) {
    if (err instanceof DiscordAPIError && ALREADY_HANDLED.has(Number(err.code))) {
      deps.log.info(`interaction ${interaction.id} already handled or expired (${err.code}); skipping`);
    } else deps.log.warn(`could not defer interaction ${interaction.id}: ${String(err)}`);
    return;
  }
  // Outside a server there is no room to describe: the plain help. Every other command comes from a server channel (readCommand saw to it).
  const room = roomHere(interaction);
  const surface = interactionSurface(interaction, ephemeral, room, deps);
  if (!room) return void (await help(surface, command.kind === "help" ? command.problem : undefined));
  await runCommand(deps.flow, surface, { room, user: interaction.user.id, name: commandUserName(interaction), key: interaction.id, permit }, command);
}

/** Options are checked here, not trusted to Discord's client: a malformed interaction gets help with what was wrong. */
function readCommand(interaction: ChatInputCommandInteraction): DuetCommand {
  const usage = (problem: string): DuetCommand => ({ kind: "help", problem });
  if (interaction.commandName !== COMMAND_NAME) return usage(`Unknown command \`/${interaction.commandName}\`. Try \`/duet help\`.`);
  if (!interaction.guildId || !interaction.channelId) return usage(DM_ANSWER);
  const text = (name: string) => {
    const opt = interaction.options.get(name);
    return typeof opt?.value === "string" ? opt.value.trim() : "";
  };
  const sub = interaction.options.getSubcommand(false);
  switch (sub) {
    case SUBCOMMANDS.ask.name: {
      const prompt = sanitizeChatText(text(SUBCOMMANDS.ask.option));
      return prompt ? { kind: "ask", text: prompt } : usage("Tell Duet what to do: `/duet ask prompt:list the files here`.");
    }
    case SUBCOMMANDS.run.name: {
      const cmd = text(SUBCOMMANDS.run.option);
      return cmd ? { kind: "run", cmd } : usage("Give a shell command: `/duet run command:ls -la`.");
    }
    case SUBCOMMANDS.history.name:
      return { kind: "history" };
    case SUBCOMMANDS.reset.name:
      return { kind: "reset" };
    case SUBCOMMANDS.stop.name:
      return { kind: "stop" };
    case SUBCOMMANDS.policy.name: {
      const mode = text(SUBCOMMANDS.policy.option);
      if (!mode) return { kind: "policy" };
      const runPolicy = readRunPolicy(mode);
      return runPolicy ? { kind: "policy", runPolicy } : usage("The run policy is `auto` or `approve`: `/duet policy mode:approve`.");
    }
    case SUBCOMMANDS.model.name:
      return readModel(text(SUBCOMMANDS.model.option));
    case SUBCOMMANDS.usage.name:
      return { kind: "usage" };
    case SUBCOMMANDS.audit.name:
      return { kind: "audit" };
    case SUBCOMMANDS.help.name:
      return { kind: "help" };
    default:
      return usage(`Unknown subcommand${sub ? ` \`${sub}\`` : ""}. Try \`/duet help\`.`);
  }
}
