import type { ServerResponse } from "node:http";
import type { Answer } from "./protocol.ts";

/**
 * The HTTP requests the front handed to the main thread and has yet to
 * answer (slash commands and clicks): each is answered once, with the main
 * thread's answer when it comes in time.
 *
 * When it does not (the main thread is held, or no handler acks), the front
 * answers an empty 200 at ANSWER_DEADLINE_MS itself. Slack gives up at 3 s;
 * bolt's receiver would answer 404 only at 3.001 s, so Slack never sees that
 * answer and tells the person the command failed. An empty 200 within Slack's
 * time says the request was received, as the front's 200 to an event does: the
 * main thread still processes it when it can (the command's answer comes
 * through its response_url or as the bot's message), and only its ack's
 * response (the ⏳ line) is lost.
 */

/** Inside Slack's 3 s, with room for the way back to Slack. */
export const ANSWER_DEADLINE_MS = 2_500;

interface Open {
  res: ServerResponse;
  timer: ReturnType<typeof setTimeout>;
}

export class PendingAnswers {
  private nextId = 1;
  private readonly open = new Map<number, Open>();

  constructor(private readonly warn: (line: string) => void) {}

  /** Holds `res` until `answer(id)`, or the deadline; `what` names the request in the log ("/duet", "block_actions"). */
  hold(res: ServerResponse, what: string): number {
    const id = this.nextId++;
    const timer = setTimeout(() => {
      this.warn(`The bot did not answer a ${what} request within ${ANSWER_DEADLINE_MS} ms: Slack got an empty 200, and the bot handles it when it can`);
      this.answer(id, { status: 200, body: "" });
    }, ANSWER_DEADLINE_MS);
    this.open.set(id, { res, timer });
    // A caller that hung up is answered no more.
    res.on("close", () => this.forget(id));
    return id;
  }

  /** Writes the answer, unless the request was answered already (the deadline came first) or its caller is gone. */
  answer(id: number, answer: Answer): void {
    const held = this.open.get(id);
    if (!held) return;
    this.forget(id);
    held.res.writeHead(answer.status, answer.contentType ? { "content-type": answer.contentType } : {}).end(answer.body);
  }

  private forget(id: number): void {
    const held = this.open.get(id);
    if (!held) return;
    clearTimeout(held.timer);
    this.open.delete(id);
  }
}
