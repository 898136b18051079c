import { describeRun } from "../format/run-view.ts";
import type { RunResult, TurnStreamEvent } from "../wire/schemas.ts";

/**
 * What a live answer shows while the turn runs: the model's text so far and each
 * command, running, then finished with its exit code and duration. Built from
 * the Worker's stream events; the flow redacts it (holding the last word back)
 * before a front end lays it out its own way (Slack task updates or blocks, a
 * Discord message, terminal lines).
 */

/** The stream events a live answer is built from (the Worker's `text`, `run-start`, `run-end`). */
export type LiveEvent = Extract<TurnStreamEvent, { event: "text" | "run-start" | "run-end" }>;

export type LiveRun = { index: number; cmd: string } & ({ state: "running" } | { state: "done"; result: RunResult });

export interface LiveAnswer {
  text: string;
  runs: LiveRun[];
  /** A blank follows the text (the Worker writes it with the next text): its last word is whole. */
  wordEnd?: boolean;
}

export const emptyLiveAnswer = (): LiveAnswer => ({ text: "", runs: [] });

/** The answer after one more event; events of other kinds (`done`, `error`) leave it as it is. */
export function applyLiveEvent(answer: LiveAnswer, ev: TurnStreamEvent): LiveAnswer {
  switch (ev.event) {
    case "text":
      return { ...answer, text: answer.text + ev.data.delta, wordEnd: ev.data.wordEnd === true };
    case "run-start":
      return { ...answer, runs: [...answer.runs.filter((r) => r.index !== ev.data.index), { index: ev.data.index, cmd: ev.data.cmd, state: "running" }] };
    case "run-end": {
      const { index, ...result } = ev.data;
      const done: LiveRun = { index, cmd: result.cmd, state: "done", result };
      const known = answer.runs.some((r) => r.index === index);
      return { ...answer, runs: known ? answer.runs.map((r) => (r.index === index ? done : r)) : [...answer.runs, done] };
    }
    default:
      return answer;
  }
}

/** One command as a live line shows it: `$ cmd`, and "running" or its status (`exit 0 · 1.2 s`). */
export interface LiveRunView {
  id: string;
  command: string;
  status: string;
  state: "running" | "ok" | "failed";
}

/** Each command's line, as the flow handed it (redacted). */
export function liveRunViews(answer: LiveAnswer): LiveRunView[] {
  return answer.runs.map((run) => {
    if (run.state === "running") return { id: String(run.index), command: `$ ${run.cmd}`, status: "running…", state: "running" };
    const view = describeRun(run.result);
    return { id: String(run.index), command: view.command, status: view.status, state: view.ok ? "ok" : "failed" };
  });
}
