import { DiscordAPIError, MessageFlags, type ChatInputCommandInteraction, type Interaction } from "discord.js";
import { describeForUser, sanitizeChatText } from "@duet/shared";
import { COMMAND_NAME, DM_ANSWER, HELP, SUBCOMMANDS } from "./commands.ts";
import type { BotDeps } from "./deps.ts";
import { renderExec, renderHistory, renderMessage, renderNotice, type Outgoing } from "./render.ts";
import { roomFor } from "./rooms.ts";

/**
 * `/duet` interactions: defer at once (Discord's 3 s), call the Worker, then
 * edit the deferred reply and continue in follow-ups. A replayed interaction
 * cannot be deferred twice (Discord answers 40060), so it never reaches the
 * Worker a second time; `ask` also passes the interaction id as the Worker's
 * idempotency key.
 */

/** Discord error codes that mean "this interaction is gone or already answered": stop quietly. */
const ALREADY_HANDLED = new Set([10062 /* unknown interaction */, 40060 /* already acknowledged */]);
/** The interaction token expired (15 min) or its webhook vanished: fall back to a channel message. */
const TOKEN_GONE = new Set([50027 /* invalid webhook token */, 10015 /* unknown webhook */]);

export async function handleInteraction(interaction: Interaction, deps: BotDeps): Promise<void> {
  if (!interaction.isChatInputCommand()) return;
  const sub = interaction.options.getSubcommand(false);
  const input = readInput(interaction, sub);
  const ephemeral = sub === SUBCOMMANDS.history.name || "usage" in input;
  try {
    await interaction.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
  } catch (err) {
    if (err instanceof DiscordAPIError && ALREADY_HANDLED.has(Number(err.code))) {
      deps.log.info(`interaction ${interaction.id} already handled or expired (${err.code}); skipping`);
    } else deps.log.warn(`could not defer interaction ${interaction.id}: ${String(err)}`);
    return;
  }
  if ("usage" in input) return send(interaction, deps, renderNotice(input.usage), ephemeral);

  let room = `channel ${interaction.channelId}`;
  let out: Outgoing[];
  try {
    room = roomFor({
      guildId: interaction.guildId!,
      channelId: interaction.channelId!,
      parentId: interaction.channel?.isThread() ? interaction.channel.parentId : null,
      isThread: Boolean(interaction.channel?.isThread()),
    });
    out = await run(interaction, deps, room, input);
  } catch (err) {
    deps.log.warn(`/${COMMAND_NAME} ${sub} in ${room} failed: ${err instanceof Error ? err.message : String(err)}`);
    out = renderNotice(describeForUser(err));
  }
  if (sub === SUBCOMMANDS.ask.name || sub === SUBCOMMANDS.run.name) deps.cleaner.forget(room);
  await send(interaction, deps, out, ephemeral);
}

type Input = { sub: string; text?: string } | { usage: string };

/** Options are checked here, not trusted to Discord's client: a malformed interaction gets a usage line. */
function readInput(interaction: ChatInputCommandInteraction, sub: string | null): Input {
  if (interaction.commandName !== COMMAND_NAME) return { usage: `Unknown command \`/${interaction.commandName}\`. Try \`/duet help\`.` };
  if (!interaction.guildId || !interaction.channelId) return { usage: DM_ANSWER };
  const text = (name: string) => {
    const opt = interaction.options.get(name);
    return typeof opt?.value === "string" ? opt.value.trim() : "";
  };
  switch (sub) {
    case SUBCOMMANDS.ask.name: {
      const prompt = sanitizeChatText(text(SUBCOMMANDS.ask.option));
      return prompt ? { sub, text: prompt } : { usage: "Tell Duet what to do: `/duet ask prompt:list the files here`." };
    }
    case SUBCOMMANDS.run.name: {
      const command = text(SUBCOMMANDS.run.option);
      return command ? { sub, text: command } : { usage: "Give a shell command: `/duet run command:ls -la`." };
    }
    case SUBCOMMANDS.history.name:
    case SUBCOMMANDS.reset.name:
    case SUBCOMMANDS.help.name:
      return { sub };
    default:
      return { usage: `Unknown subcommand${sub ? ` \`${sub}\`` : ""}. Try \`/duet help\`.` };
  }
}

async function run(interaction: ChatInputCommandInteraction, deps: BotDeps, room: string, input: { sub: string; text?: string }): Promise<Outgoing[]> {
  switch (input.sub) {
    case SUBCOMMANDS.ask.name: {
      const res = await deps.worker.message(room, { text: input.text!, userId: interaction.user.id, idempotencyKey: interaction.id });
      return renderMessage(res, deps.secrets);
    }
    case SUBCOMMANDS.run.name:
      return renderExec(input.text!, await deps.worker.exec(room, { cmd: input.text!, userId: interaction.user.id, idempotencyKey: interaction.id }), deps.secrets);
    case SUBCOMMANDS.history.name:
      return renderHistory((await deps.worker.history(room)).messages, deps.secrets);
    case SUBCOMMANDS.reset.name: {
      const res = await deps.cleaner.clean(room, "reset", { force: true });
      return renderNotice(
        res?.errors?.length
          ? `Room reset, with problems: ${res.errors.join("; ")}. The history is gone; try \`/duet reset\` again to remove what is left.`
          : "Room reset: the history is gone and the sandbox was removed. The next question starts fresh.",
      );
    }
    default:
      return renderNotice(HELP);
  }
}

/** Edits the deferred reply with the first message, then follow-ups; mentions never ping. */
async function send(interaction: ChatInputCommandInteraction, deps: BotDeps, out: Outgoing[], ephemeral: boolean): Promise<void> {
  const [first, ...rest] = out;
  let sent = 0;
  try {
    await interaction.editReply({ content: first.content, files: first.files, allowedMentions: { parse: [] } });
    sent++;
    for (const msg of rest) {
      await interaction.followUp({ content: msg.content, files: msg.files, allowedMentions: { parse: [] }, ...(ephemeral ? { flags: MessageFlags.Ephemeral } : {}) });
      sent++;
    }
    deps.log.info(`interaction ${interaction.id} answered (${out.length} message${out.length === 1 ? "" : "s"})`);
  } catch (err) {
    if (!(err instanceof DiscordAPIError && TOKEN_GONE.has(Number(err.code))) || ephemeral || !interaction.channel?.isSendable()) {
      deps.log.warn(`could not answer interaction ${interaction.id}: ${String(err)}`);
      return;
    }
    // The 15-minute token ran out: post in the channel instead, addressed to the user.
    const channel = interaction.channel;
    const intro = `<@${interaction.user.id}> here is the answer to your \`/duet ${interaction.options.getSubcommand(false) ?? ""}\` (it took longer than Discord lets a command reply):`;
    for (const msg of [{ content: intro, files: [] }, ...out.slice(sent)]) {
      await channel.send({ content: msg.content, files: msg.files, allowedMentions: { users: [interaction.user.id] } }).catch((e) => deps.log.warn(`fallback send failed: ${String(e)}`));
    }
    deps.log.info(`interaction ${interaction.id} answered in the channel (its token had expired)`);
  }
}
