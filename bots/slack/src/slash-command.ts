import { type FlowDeps, guardOf, parseDuetCommand, type Permit, runCommand } from "@duet/shared";
import type { App, Logger } from "@slack/bolt";
import type { SlackAccess } from "./control/access.ts";
import { slackToPlain } from "./mrkdwn.ts";
import { channelRoom } from "./rooms.ts";
import type { SlackOut } from "./slack-api.ts";
import { slashSurface } from "./surfaces.ts";

/**
 * `/duet ask|run|history|reset|policy|audit|help`. Slack wants the ack within 3 s, so the
 * command is acked at once (with a "working" line the caller sees), and the
 * shared flow answers through the command's response_url. Slash commands carry
 * no thread, so they always use the channel's room.
 */

export interface SlashDeps {
  flow: FlowDeps;
  out: SlackOut;
  logger: Logger;
  /** The bot's own tokens, redacted from anything it posts. */
  secrets: readonly string[];
  access: SlackAccess;
}

const WORKING = {
  ask: ":hourglass_flowing_sand: Duet is thinking…",
  run: ":hourglass_flowing_sand: Running in this channel's sandbox…",
} as const;

/** How long the ack waits to learn whether a guarded command is refused (a user group may need Slack): well inside Slack's 3 s. */
const PERMIT_BEFORE_ACK_MS = 1_000;

/** True when `permit` refuses the command's action within the wait; unknown counts as allowed (the flow checks again). */
async function refusedSoon(permit: Permit, parsed: ReturnType<typeof parseDuetCommand>): Promise<boolean> {
  const guard = guardOf(parsed);
  if (!guard) return false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), PERMIT_BEFORE_ACK_MS)));
  const refused = permit(guard).then((whoMay) => whoMay !== null, () => false);
  return Promise.race([refused, late]).finally(() => clearTimeout(timer));
}

export function registerSlashCommand(app: App, deps: SlashDeps, track: (p: Promise<void>) => Promise<void>): void {
  app.command("/duet", async ({ command, ack, respond }) => {
    // Slack escapes &, < and > in command text as in messages; commands must run as typed.
    const parsed = parseDuetCommand(slackToPlain(command.text ?? ""));
    const permit = deps.access.permit(command.user_id);
    // "Running…" only for a command that will run: a refusal follows on its own.
    const working = (parsed.kind === "ask" || parsed.kind === "run") && !(await refusedSoon(permit, parsed));
    if (working) await ack({ response_type: "ephemeral", text: WORKING[parsed.kind as keyof typeof WORKING] });
    else await ack();
    const room = channelRoom(command.team_id, command.channel_id);
    const surface = slashSurface(deps.out, respond, { channel: command.channel_id, command: parsed.kind, room }, deps.logger, deps.secrets);
    const asker = { room, user: command.user_id, key: command.trigger_id, permit };
    await track(runCommand(deps.flow, surface, asker, parsed).then(() => undefined));
  });
}
