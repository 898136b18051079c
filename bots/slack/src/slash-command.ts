import { type DuetCommand, type FlowDeps, guardOf, parseDuetCommand, type Permit, runCommand, sanitizeChatText, WORKING_TEXT } from "@duet/shared";
import type { App, Logger, SlashCommand } from "@slack/bolt";
import type { SlackAccess } from "./control/access.ts";
import type { LiveMessages } from "./live/live-message.ts";
import { slackToPlain } from "./mrkdwn.ts";
import { askedLine } from "./render.ts";
import { channelRoom } from "./rooms.ts";
import type { PeopleNames } from "./people.ts";
import type { SlackOut } from "./slack-api.ts";
import { slashSurface } from "./surfaces.ts";
import type { SlackFiles } from "./files/slack-files.ts";
import { slackTarget } from "./outbox-delivery.ts";

/**
 * `/duet ask|run|get|history|reset|policy|model|repo|usage|audit|schedule|schedules|unschedule|help`. Slack wants the ack within 3 s, so the
 * command is acked at once (with a "working" line the caller sees), and the
 * shared flow answers through the command's response_url. Slash commands carry
 * no thread, so they always use the channel's room.
 *
 * `/duet ask` answers live as the bot instead: a message posted in the channel
 * and updated in place at most once a second (chat.update; a stream is only
 * ever a thread reply), with its commands shown as they run and a Stop button,
 * ending as the message the response_url would have carried (the same "asked:"
 * line, blocks and files). The response_url cannot do this: it takes 5 posts in
 * 30 minutes, and `replace_original` is defined for the message holding a
 * clicked button, not for a slash command's earlier response (Slack posts those
 * anew, as bolt-js#2287 and bolt-python#1268 report), so a live answer through
 * it would be up to five copies of the answer in the channel, or at best three
 * glimpses of it. Everyone in the channel sees the bot's message, as they see
 * an `in_channel` response; the subcommands keep their response_url replies
 * (`ephemeral` ones too). Where Slack refuses the bot's post (Duet is not a
 * member of the channel, a DM between people), the answer comes whole through
 * the response_url, as with DUET_STREAMING=off.
 */

export interface SlashDeps {
  flow: FlowDeps;
  out: SlackOut;
  logger: Logger;
  access: SlackAccess;
  /** Live answers for `/duet ask`. */
  live: LiveMessages;
  /** Where `/duet get` and an answer's attachments post files: the channel. */
  files: SlackFiles;
  /** People's display names, for the model to tell them apart. */
  people: PeopleNames;
}

const WORKING = {
  ask: `:hourglass_flowing_sand: ${WORKING_TEXT.ask}`,
  run: `:hourglass_flowing_sand: ${WORKING_TEXT.run}`,
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
    const typed = parseDuetCommand(slackToPlain(command.text ?? ""));
    const permit = deps.access.permit(command.user_id);
    // "Running…" only for a command that will run: a refusal follows on its own.
    const working = (typed.kind === "ask" || typed.kind === "run") && !(await refusedSoon(permit, typed));
    if (working) await ack({ response_type: "ephemeral", text: WORKING[typed.kind as keyof typeof WORKING] });
    else await ack();
    // After the ack (names may take a call to Slack): a question reaches the model with people's names, not their ids.
    const parsed = typed.kind === "ask" ? parseDuetCommand(slackToPlain(await deps.people.withNames(command.team_id, command.text ?? ""))) : typed;
    const room = channelRoom(command.team_id, command.channel_id);
    const live = liveAnswer(deps, command, parsed, room);
    const surface = slashSurface(deps.out, respond, { channel: command.channel_id, command: parsed.kind, room, files: deps.files.surface({ channel: command.channel_id }), ...(live ? { live } : {}) }, deps.logger);
    const name = parsed.kind === "ask" || parsed.kind === "pr" ? await deps.people.name(command.team_id, command.user_id) : null;
    // A scheduled ask's answers are new messages in this channel, delivered through the outbox.
    const scheduleTarget = { platform: "slack" as const, place: { channel: command.channel_id } };
    // The answer is kept for delivery in the channel, where its live message is posted.
    const asker = { room, user: command.user_id, key: command.trigger_id, permit, buttons: true, deliver: slackTarget({ channel: command.channel_id }), scheduleTarget, ...(name ? { name } : {}) };
    await track(runCommand(deps.flow, surface, asker, parsed).then(() => undefined));
  });
}

/** For `/duet ask`: a live answer posted in the channel, under the line that says who asked what (the flow's redacted question). */
function liveAnswer(deps: SlashDeps, command: SlashCommand, parsed: DuetCommand, room: string) {
  if (parsed.kind !== "ask") return undefined;
  const place = { channel: command.channel_id, recipientUserId: command.user_id, recipientTeamId: command.team_id };
  return (onPosted?: (ts: string) => void, question = "") => deps.live({ ...place, heading: [askedLine(command.user_id, question)], room, onPosted });
}
