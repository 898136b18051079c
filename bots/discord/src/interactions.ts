import { DiscordAPIError, MessageFlags, type ChatInputCommandInteraction, type Interaction } from "discord.js";
import {
  askNeedsQuestion,
  commandAudience,
  DISCORD_DM_ANSWER,
  guardOf,
  help,
  forgetCommand,
  readModel,
  rememberCommand,
  readRepoArgs,
  readToolsArgs,
  readPrArgs,
  readRunPolicy,
  runCommand,
  runNeedsCommand,
  sanitizeChatText,
  scheduleCommand,
  scheduleUsage,
  shareFiles,
  unknownCommand,
  unknownPolicy,
  unscheduleCommand,
  type DuetCommand,
  type Spelling,
} from "@duet/shared";
import { incomingFiles } from "./files/incoming.ts";
import { COMMAND_NAME, SUBCOMMANDS, type SubcommandName } from "./commands.ts";
import { permitFor } from "./control/access.ts";
import { commandUserName } from "./people.ts";
import { handleApprovalClick, isApprovalClick } from "./clicks/approval-click.ts";
import { handlePrClick, isPrClick } from "./clicks/pr-click.ts";
import { handleMemoryClick, isMemoryClick } from "./clicks/memory-click.ts";
import type { BotDeps } from "./deps.ts";
import { discordTarget } from "./outbox-delivery.ts";
import { roomHere } from "./rooms.ts";
import { interactionSurface } from "./surfaces.ts";
import { ALREADY_HANDLED } from "./interaction-errors.ts";
import { handleAskDuet, isAskDuet } from "./ask-duet/ask-duet.ts";

/**
 * `/duet` interactions: defer at once (Discord's 3 s), then the shared flow for
 * the command edits the deferred reply. A replayed interaction cannot be
 * deferred twice (Discord answers 40060), so it never reaches the Worker a
 * second time; the interaction id is also the Worker's idempotency key.
 */


/** `acked`: told once the command is deferred (its ack), for the metrics. */
export async function handleInteraction(interaction: Interaction, deps: BotDeps, acked?: () => void): Promise<void> {
  if (isApprovalClick(interaction)) return handleApprovalClick(interaction, deps);
  if (isPrClick(interaction)) return handlePrClick(interaction, deps);
  if (isMemoryClick(interaction)) return handleMemoryClick(interaction, deps);
  if (isAskDuet(interaction)) return handleAskDuet(interaction, deps, acked);
  if (!interaction.isChatInputCommand()) return;
  const command = readCommand(interaction);
  const permit = permitFor(deps.access, interaction);
  // A refusal is for the asker only, and Discord fixes a reply's visibility when it is deferred.
  const guard = guardOf(command);
  const refused = guard ? (await permit(guard)) !== null : false;
  const ephemeral = commandAudience(command, refused) === "asker";
  try {
    await interaction.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
    acked?.();
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
  // An answer the room keeps for delivery goes to the channel: the interaction's token lasts 15 minutes only.
  // A scheduled ask's answers are new messages in this channel, delivered through the outbox.
  const scheduleTarget = { platform: "discord" as const, place: { channel: interaction.channelId } };
  const asker = { room, user: interaction.user.id, name: commandUserName(interaction), key: interaction.id, permit, buttons: true, deliver: discordTarget(interaction.channelId), scheduleTarget };
  const file = command.kind === "ask" ? interaction.options.getAttachment(SUBCOMMANDS.ask.file, false) : null;
  if (file) {
    // Said in the channel: the deferred reply is the answer's, and what went wrong with the file must stay beside it.
    const channel = interaction.channel;
    const say = async (r: { kind: string; text?: string }) =>
      channel?.isSendable() && deps.pace.run<unknown>(channel.id, () => channel.send({ content: `<@${interaction.user.id}> ${r.text ?? ""}`, allowedMentions: { parse: [] } }));
    await shareFiles(deps.flow, say, asker, incomingFiles([file], deps.cdn), "Discord");
  }
  await runCommand(deps.flow, surface, asker, command);
}

/** How Discord's `/duet` is typed: each argument after its option's name (`/duet schedule when:every 2h prompt:…`). */
const DISCORD_SPELLING: Spelling = (sub, ...args) => {
  const names = SUBCOMMANDS[sub as SubcommandName] as { option?: string; when?: string } | undefined;
  const options = names?.when ? [names.when, names.option] : [names?.option];
  return [`/${COMMAND_NAME}`, sub, ...args.map((a, i) => `${options[i] ?? "?"}:${a}`)].join(" ");
};

/** Options are checked here, not trusted to Discord's client: a malformed interaction gets help with what was wrong. */
function readCommand(interaction: ChatInputCommandInteraction): DuetCommand {
  const usage = (problem: string): DuetCommand => ({ kind: "help", problem });
  if (interaction.commandName !== COMMAND_NAME) return usage(unknownCommand(`/${interaction.commandName.replace(/`/g, "'").slice(0, 30)}`));
  if (!interaction.guildId || !interaction.channelId) return usage(DISCORD_DM_ANSWER);
  const text = (name: string) => {
    const opt = interaction.options.get(name);
    return typeof opt?.value === "string" ? opt.value.trim() : "";
  };
  const sub = interaction.options.getSubcommand(false);
  switch (sub) {
    case SUBCOMMANDS.ask.name: {
      const prompt = sanitizeChatText(text(SUBCOMMANDS.ask.option));
      return prompt ? { kind: "ask", text: prompt } : usage(askNeedsQuestion(DISCORD_SPELLING));
    }
    case SUBCOMMANDS.run.name: {
      const cmd = text(SUBCOMMANDS.run.option);
      return cmd ? { kind: "run", cmd } : usage(runNeedsCommand(DISCORD_SPELLING));
    }
    case SUBCOMMANDS.get.name:
      return { kind: "get", path: text(SUBCOMMANDS.get.option) };
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
      return runPolicy ? { kind: "policy", runPolicy } : usage(unknownPolicy(DISCORD_SPELLING, mode.replace(/`/g, "'").slice(0, 30)));
    }
    case SUBCOMMANDS.model.name:
      return readModel(text(SUBCOMMANDS.model.option), DISCORD_SPELLING);
    case SUBCOMMANDS.repo.name:
      return { kind: "repo", ...readRepoArgs(text(SUBCOMMANDS.repo.option)) };
    case SUBCOMMANDS.tools.name:
      return { kind: "tools", ...readToolsArgs(text(SUBCOMMANDS.tools.option)) };
    case SUBCOMMANDS.pr.name:
      return { kind: "pr", ...readPrArgs(text(SUBCOMMANDS.pr.option)) };
    case SUBCOMMANDS.usage.name:
      return { kind: "usage" };
    case SUBCOMMANDS.audit.name:
      return { kind: "audit" };
    case SUBCOMMANDS.schedule.name: {
      const when = text(SUBCOMMANDS.schedule.when);
      const prompt = text(SUBCOMMANDS.schedule.option);
      if (!when || !prompt) return usage(scheduleUsage(DISCORD_SPELLING));
      // Quoted, so the shared reader takes the whole option as the when.
      return scheduleCommand(`"${when.replace(/"/g, "")}" ${prompt}`, DISCORD_SPELLING);
    }
    case SUBCOMMANDS.schedules.name:
      return { kind: "schedules" };
    case SUBCOMMANDS.unschedule.name:
      return unscheduleCommand(text(SUBCOMMANDS.unschedule.option), DISCORD_SPELLING);
    case SUBCOMMANDS.remember.name:
      return rememberCommand(text(SUBCOMMANDS.remember.option), DISCORD_SPELLING);
    case SUBCOMMANDS.memory.name:
      return { kind: "memory" };
    case SUBCOMMANDS.forget.name:
      return forgetCommand(text(SUBCOMMANDS.forget.option), DISCORD_SPELLING);
    case SUBCOMMANDS.help.name:
      return { kind: "help" };
    default:
      return usage(unknownCommand(`/${COMMAND_NAME} ${(sub ?? "").replace(/`/g, "'").slice(0, 30)}`.trim()));
  }
}
