import { type Asker, type ChatSurface, chooseReset, decideFact, type FlowDeps, LatestShown, PROPOSAL_ID_PATTERN, type Reply, type ResetChoice } from "@duet/shared";
import type { App, Logger } from "@slack/bolt";
import { type Click, clickedIn, clickSchema } from "../click.ts";
import type { PeopleNames } from "../people.ts";
import { renderReply } from "../render.ts";
import type { Block, SlackOut } from "../slack-api.ts";
import type { SlackAccess } from "./access.ts";
import { FACT_ACTION_IDS, readFactValue, readResetValue, RESET_ACTION_IDS, withFactDecision } from "./memory-blocks.ts";

/**
 * Clicks on the room's memory buttons: a reset's Keep / Reset everything /
 * Cancel, and Pin / Dismiss on a fact the model proposed. Bolt has checked the
 * request as for every Slack request; a click whose button names another
 * room than the conversation's, or carries a value this bot never sent, does
 * nothing. The shared flows check who may and ask the Worker, which keeps a
 * stale or repeated click from resetting or pinning twice.
 */

export interface MemoryClickDeps {
  flow: FlowDeps;
  out: SlackOut;
  access: SlackAccess;
  logger: Logger;
  people: PeopleNames;
}

const RESET_CHOICE_OF = new Map<string, ResetChoice>(Object.entries(RESET_ACTION_IDS).map(([choice, id]) => [id, choice as ResetChoice]));
const FACT_IDS = new Set<string>(Object.values(FACT_ACTION_IDS));

export function registerMemoryClicks(app: App, deps: MemoryClickDeps, track: (p: Promise<void>) => Promise<void>): void {
  const latest = new LatestShown<Block[]>();
  const ids = [...RESET_CHOICE_OF.keys(), ...FACT_IDS].join("|");

  app.action(new RegExp(`^(${ids})$`), async ({ ack, body }) => {
    await ack();
    await track(
      (async () => {
        const click = clickSchema.safeParse(body);
        if (!click.success || !click.data.channel || !click.data.message || !click.data.team) {
          return deps.logger.warn("Ignored a memory button click Slack sent without its user, team, channel or message");
        }
        const placed = click.data as Placed;
        const action = click.data.actions.find((a) => RESET_CHOICE_OF.has(a.action_id) || FACT_IDS.has(a.action_id))!;
        const choice = RESET_CHOICE_OF.get(action.action_id);
        if (choice) return resetClicked(deps, placed, choice, action.value);
        return factClicked(deps, placed, action.action_id === FACT_ACTION_IDS.pin ? "pin" : "dismiss", action.value, latest);
      })(),
    );
  });
}

type Placed = Click & { channel: { id: string }; message: NonNullable<Click["message"]>; team: { id: string } };

/** What a click answers through: posts in the message's thread, the clicker's private lines, and edits of the clicked message. */
function clickSurface(deps: MemoryClickDeps, click: Placed, room: string, edit: (reply: Reply) => Block[] | null): ChatSurface {
  const { channel, message, user } = click;
  const threadTs = message.thread_ts ?? message.ts;
  return {
    async post(reply) {
      const r = renderReply(reply, { place: "thread", room });
      const ts = await deps.out.post(channel.id, r.text, r.blocks, threadTs);
      return ts ? { id: ts } : null;
    },
    async postPrivate(reply) {
      const r = renderReply(reply, { place: "thread", room });
      return (await deps.out.postEphemeral(channel.id, user.id, r.text, r.blocks, message.thread_ts)) ? { id: `ephemeral:${user.id}` } : null;
    },
    async edit(_ref, reply) {
      const blocks = edit(reply);
      if (!blocks) return false;
      return deps.out.update(channel.id, message.ts, renderReply(reply, { place: "thread", room }).text, blocks);
    },
    showProgress: () => async () => {},
  };
}

async function resetClicked(deps: MemoryClickDeps, click: Placed, choice: ResetChoice, value: string | undefined): Promise<void> {
  const ref = readResetValue(value);
  if (!ref || !clickedIn(ref.room, click)) {
    return deps.logger.warn(`Ignored a reset click in ${click.team.id}/${click.channel.id} for another room or an unknown button`);
  }
  // The question's message becomes what was chosen: its buttons go.
  const surface = clickSurface(deps, click, ref.room, (reply) => (reply.kind === "reset" || reply.kind === "reset-cancelled" ? renderReply(reply, { place: "thread" }).blocks : null));
  const asker: Asker = { room: ref.room, user: click.user.id, key: `reset:${click.message.ts}:${click.user.id}`, permit: deps.access.permit(click.user.id) };
  await chooseReset(deps.flow, surface, asker, { choice, resetAt: ref.resetAt, message: { id: click.message.ts } });
}

async function factClicked(deps: MemoryClickDeps, click: Placed, decision: "pin" | "dismiss", value: string | undefined, latest: LatestShown<Block[]>): Promise<void> {
  const ref = readFactValue(value);
  if (!ref || !PROPOSAL_ID_PATTERN.test(ref.id) || !clickedIn(ref.room, click)) {
    return deps.logger.warn(`Ignored a Pin/Dismiss click in ${click.team.id}/${click.channel.id} for another room or an unknown button`);
  }
  const key = `${click.channel.id}/${click.message.ts}`;
  // Only the clicked fact's buttons change; the answer and the other proposals stay as they are.
  const surface = clickSurface(deps, click, ref.room, (reply) => {
    if (reply.kind !== "fact-decided") return null;
    const blocks = withFactDecision(latest.get(key) ?? (click.message.blocks as unknown as Block[]), reply);
    latest.set(key, blocks);
    return blocks;
  });
  const name = decision === "pin" ? await deps.people.name(click.team.id, click.user.id) : null;
  const asker: Asker = { room: ref.room, user: click.user.id, key: `fact:${ref.id}:${click.user.id}`, ...(name ? { name } : {}) };
  await decideFact(deps.flow, surface, asker, { proposalId: ref.id, decision, message: { id: click.message.ts } });
}
