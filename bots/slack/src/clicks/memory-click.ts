import { type Asker, chooseReset, decideFact, type FlowDeps, LatestShown, PROPOSAL_ID_PATTERN, type ResetChoice } from "@duet/shared";
import type { App } from "@slack/bolt";
import { clickedIn } from "../click.ts";
import type { PeopleNames } from "../people.ts";
import { renderReply } from "../render.ts";
import type { Block } from "../slack-api.ts";
import type { SlackAccess } from "../control/access.ts";
import { type ClickReplyDeps, clickSurface, onClick, type PlacedClick, refuseClick } from "./click-reply.ts";
import { FACT_ACTION_IDS, readFactValue, readResetValue, RESET_ACTION_IDS, withFactDecision } from "../control/memory-blocks.ts";

/**
 * Clicks on the room's memory buttons: a reset's Keep / Reset everything /
 * Cancel, and Pin / Dismiss on a fact the model proposed. Bolt has checked the
 * request as for every Slack request; a click whose button names another
 * room than the conversation's, or carries a value this bot never sent, does
 * nothing. The shared flows check who may and ask the Worker, which keeps a
 * stale or repeated click from resetting or pinning twice.
 */

export interface MemoryClickDeps extends ClickReplyDeps {
  flow: FlowDeps;
  access: SlackAccess;
  people: PeopleNames;
}

const RESET_CHOICE_OF = new Map<string, ResetChoice>(Object.entries(RESET_ACTION_IDS).map(([choice, id]) => [id, choice as ResetChoice]));
const FACT_IDS = new Set<string>(Object.values(FACT_ACTION_IDS));

export function registerMemoryClicks(app: App, deps: MemoryClickDeps, track: (p: Promise<void>) => Promise<void>): void {
  const latest = new LatestShown<Block[]>();
  const ids = [...RESET_CHOICE_OF.keys(), ...FACT_IDS].join("|");

  onClick(app, new RegExp(`^(${ids})$`), "a memory button click", deps, track, async (click) => {
    const action = click.actions.find((a) => RESET_CHOICE_OF.has(a.action_id) || FACT_IDS.has(a.action_id))!;
    const choice = RESET_CHOICE_OF.get(action.action_id);
    if (choice) return resetClicked(deps, click, choice, action.value);
    return factClicked(deps, click, action.action_id === FACT_ACTION_IDS.pin ? "pin" : "dismiss", action.value, latest);
  });
}

async function resetClicked(deps: MemoryClickDeps, click: PlacedClick, choice: ResetChoice, value: string | undefined): Promise<void> {
  const ref = readResetValue(value);
  if (!ref || !clickedIn(ref.room, click)) return refuseClick(deps, "a reset click", click);
  // The question's message becomes what was chosen: its buttons go.
  const surface = clickSurface(
    deps,
    click,
    (reply) => {
      if (reply.kind !== "reset" && reply.kind !== "reset-cancelled") return null;
      const { text, blocks } = renderReply(reply, { place: "thread" });
      return { text, blocks };
    },
    ref.room,
  );
  const asker: Asker = { room: ref.room, user: click.user.id, key: `reset:${click.message.ts}:${click.user.id}`, permit: deps.access.permit(click.user.id) };
  await chooseReset(deps.flow, surface, asker, { choice, resetAt: ref.resetAt, message: { id: click.message.ts } });
}

async function factClicked(deps: MemoryClickDeps, click: PlacedClick, decision: "pin" | "dismiss", value: string | undefined, latest: LatestShown<Block[]>): Promise<void> {
  const ref = readFactValue(value);
  if (!ref || !PROPOSAL_ID_PATTERN.test(ref.id) || !clickedIn(ref.room, click)) return refuseClick(deps, "a Pin/Dismiss click", click);
  const key = `${click.channel.id}/${click.message.ts}`;
  // Only the clicked fact's buttons change; the answer and the other proposals stay as they are.
  const surface = clickSurface(
    deps,
    click,
    (reply) => {
      if (reply.kind !== "fact-decided") return null;
      const blocks = withFactDecision(latest.get(key) ?? (click.message.blocks as unknown as Block[]), reply);
      latest.set(key, blocks);
      return { text: renderReply(reply, { place: "thread", room: ref.room }).text, blocks };
    },
    ref.room,
  );
  const name = decision === "pin" ? await deps.people.name(click.team.id, click.user.id) : null;
  const asker: Asker = { room: ref.room, user: click.user.id, key: `fact:${ref.id}:${click.user.id}`, ...(name ? { name } : {}) };
  await decideFact(deps.flow, surface, asker, { proposalId: ref.id, decision, message: { id: click.message.ts } });
}
