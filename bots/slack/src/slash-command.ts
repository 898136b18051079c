import { describeForUser, HELP_TEXT, parseDuetCommand, redactSecrets, type WorkerClient } from "@duet/shared";
import type { App, Logger, RespondArguments, SlashCommand } from "@slack/bolt";
import { escapeSlack, markdownToMrkdwn, slackToPlain } from "./mrkdwn.ts";
import { renderAnswer, renderExec, renderHistory, renderNotice, type Rendered } from "./render.ts";
import { channelRoom } from "./rooms.ts";
import { context } from "./run-block.ts";
import type { SlackOut } from "./slack-api.ts";

/**
 * `/duet ask|run|history|reset|help`. Slack wants the ack within 3 s, so the
 * command is acked at once (with a "working" line the caller sees), and the
 * answer follows through the command's response_url. Slash commands carry no
 * thread, so they always use the channel's room.
 */

export interface SlashDeps {
  worker: WorkerClient;
  out: SlackOut;
  logger: Logger;
  /** The bot's own tokens, redacted from anything it posts. */
  secrets: readonly string[];
}

type Respond = (msg: RespondArguments) => Promise<unknown>;
type Parsed = ReturnType<typeof parseDuetCommand>;

/** Characters of the question echoed above an answer, so the channel knows what was asked. */
const ECHO_CHARS = 300;

export function registerSlashCommand(app: App, deps: SlashDeps, track: (p: Promise<void>) => Promise<void>): void {
  app.command("/duet", async ({ command, ack, respond }) => {
    // Slack escapes &, < and > in command text as in messages; commands must run as typed.
    const parsed = parseDuetCommand(slackToPlain(command.text ?? ""));
    if (parsed.kind === "ask") await ack({ response_type: "ephemeral", text: ":hourglass_flowing_sand: Duet is thinking…" });
    else if (parsed.kind === "run") await ack({ response_type: "ephemeral", text: ":hourglass_flowing_sand: Running in this channel's sandbox…" });
    else await ack();
    await track(answer(parsed, command, deps, respond));
  });
}

async function answer(parsed: Parsed, command: SlashCommand, deps: SlashDeps, respond: Respond): Promise<void> {
  const room = channelRoom(command.team_id, command.channel_id);
  const user = command.user_id;
  const send = async (r: Rendered, inChannel: boolean) => {
    try {
      await respond({ response_type: inChannel ? "in_channel" : "ephemeral", replace_original: false, text: r.text, blocks: r.blocks });
    } catch (err) {
      deps.logger.warn(`response_url post failed for /duet ${parsed.kind}: ${(err as Error)?.message ?? err}`);
      return;
    }
    // Files cannot go through a response_url; they are shared in the channel itself.
    for (const upload of r.uploads) await deps.out.upload(command.channel_id, upload);
  };
  try {
    switch (parsed.kind) {
      case "ask": {
        const res = await deps.worker.message(room, { text: parsed.text, userId: user, idempotencyKey: command.trigger_id });
        const r = renderAnswer(res, { reserveBlocks: 1, where: "in this channel", secrets: deps.secrets });
        return await send(withEcho(r, `<@${user}> asked: ${echo(parsed.text, deps.secrets)}`), true);
      }
      case "run": {
        const res = await deps.worker.exec(room, { cmd: parsed.cmd, userId: user, idempotencyKey: command.trigger_id });
        const r = renderExec(parsed.cmd, res.result, { reserveBlocks: 1, where: "in this channel", secrets: deps.secrets });
        return await send(withEcho(r, `<@${user}> ran a command in this channel's sandbox`), true);
      }
      case "history":
        return await send(renderHistory((await deps.worker.history(room)).messages, deps.secrets), false);
      case "reset": {
        const res = await deps.worker.cleanup(room);
        const partial = res.errors?.length ? `\n_Some parts could not be removed (${escapeSlack(res.errors.join("; "))}); running \`/duet reset\` again retries them._` : "";
        return await send(renderNotice(`:broom: <@${user}> reset Duet in this channel: the conversation history is cleared and the sandbox is removed.${partial}`), true);
      }
      default: {
        const problem = parsed.problem ? `:information_source: ${escapeSlack(parsed.problem)}\n\n` : "";
        return await send(renderNotice(problem + markdownToMrkdwn(HELP_TEXT)), false);
      }
    }
  } catch (err) {
    deps.logger.warn(`/duet ${parsed.kind} in ${room} failed: ${(err as Error)?.message ?? err}`);
    await send(renderNotice(`:warning: ${describeForUser(err)}`), false);
  }
}

function echo(text: string, secrets: readonly string[]): string {
  const flat = redactSecrets(text, secrets).replace(/\s+/g, " ").trim();
  return escapeSlack(flat.length > ECHO_CHARS ? `${flat.slice(0, ECHO_CHARS - 1)}…` : flat);
}

function withEcho(r: Rendered, line: string): Rendered {
  return { ...r, blocks: [context(line), ...r.blocks] };
}
