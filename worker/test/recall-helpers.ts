import { expect } from "vitest";
import { RECALL_LABEL } from "../src/model/prompt.ts";
import { modelCallsWith, send, type SeenModelCall } from "./helpers.ts";

/** Asking a room so that it recalls, and reading what it recalled: shared by the recall test files. */

/** The recalled block of a prompt, when it has one. */
export const recalledBlock = (call: SeenModelCall) => call.messages.find((m) => m.role === "user" && m.content.startsWith(RECALL_LABEL))?.content;

/** Asks `question` in `room` and answers the model's recorded prompt for it. */
export async function ask(room: string, question: string): Promise<SeenModelCall> {
  const marker = `ask-${room}-${Math.random().toString(36).slice(2, 8)}`;
  const res = await send(room, `SAY: ok ${marker} ${question}`);
  expect(res.status).toBe(200);
  const [call] = await modelCallsWith(marker);
  return call;
}

/** Filler turns, some of them near the planted facts' words, so recall has to rank. */
export async function chatter(room: string, n: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i++) {
    const text = i % 10 === 0 ? `SAY: ok ${i}, we talked about the test suite and the deploy window` : `SAY: ok filler ${i}, chatting about lunch plans and the weather`;
    expect((await send(room, text, { userId: `U${i % 4}`, userName: `Person ${i % 4}` })).status).toBe(200);
  }
}
