import { redactAnswer, redactRun } from "../format/redact-answer.ts";
import { endBeforeBlank } from "../format/blank-follows.ts";
import { redactSecrets } from "../format/redact.ts";
import { openVariantAt } from "../format/secret-variants.ts";
import { openShapeAt } from "../format/split-tokens.ts";
import type { LiveAnswer, LiveRun } from "../live/live-answer.ts";
import type { ScheduleView } from "../wire/schedule-schemas.ts";
import type { Reply } from "./reply.ts";
import type { ChatSurface, LiveView } from "./surface.ts";

/**
 * The one place a reply is redacted before a person sees it: every Reply, live
 * answer and file comment the flow hands a surface passes through here, with
 * the bot's own tokens (FlowDeps.secrets) besides the shared patterns. Front
 * ends render what they get and redact nothing themselves.
 */

export function redactReply(reply: Reply, secrets: readonly string[]): Reply {
  const r = (text: string) => redactSecrets(text, secrets);
  const schedule = (s: ScheduleView): ScheduleView => ({ ...s, when: r(s.when), ask: r(s.ask) });
  switch (reply.kind) {
    case "answer":
      return { ...reply, answer: redactAnswer(reply.answer, secrets), question: r(reply.question) };
    case "ran":
      return { ...reply, cmd: r(reply.cmd), result: { ...reply.result, stdout: r(reply.result.stdout), stderr: r(reply.result.stderr), ...(reply.result.error !== undefined ? { error: r(reply.result.error) } : {}) } };
    case "history":
      return { ...reply, messages: reply.messages.map((m) => ({ ...m, text: r(m.text) })) };
    case "audit":
      return { ...reply, entries: reply.entries.map((e) => ({ ...e, ...(e.cmd !== undefined ? { cmd: r(e.cmd) } : {}), ...(e.ask !== undefined ? { ask: r(e.ask) } : {}), ...(e.when !== undefined ? { when: r(e.when) } : {}) })) };
    case "decided":
      return { ...reply, approval: { ...reply.approval, cmd: r(reply.approval.cmd) } };
    case "scheduled":
    case "unscheduled":
      return { ...reply, schedule: schedule(reply.schedule) };
    case "schedules":
      return { ...reply, schedules: reply.schedules.map(schedule) };
    case "help":
      return reply.problem ? { ...reply, problem: r(reply.problem) } : reply;
    case "hint":
    case "refused":
    case "error":
      return { ...reply, text: r(reply.text) };
    case "reset":
      return { ...reply, errors: reply.errors.map(r) };
    // The model's change: its title, stat and diff are the model's data (the Worker redacted the diff; the bot's own secrets here).
    case "pr-proposal":
      return { ...reply, proposal: { ...reply.proposal, title: r(reply.proposal.title), diffstat: r(reply.proposal.diffstat), diffHead: r(reply.proposal.diffHead) } };
    // A pull request's address and branch, from GitHub and Duet.
    case "pr-decided":
    case "pr-no-repo":
      return reply;
    // A server's address, a listing's failure and a tool's description come from whoever runs the server.
    case "tools":
      return {
        ...reply,
        ...(reply.listing
          ? { listing: { ...reply.listing, servers: reply.listing.servers.map((s) => ({ ...s, url: r(s.url), ...(s.error !== undefined ? { error: r(s.error) } : {}), tools: s.tools.map((t) => ({ ...t, ...(t.description !== undefined ? { description: r(t.description) } : {}) })) })) } }
          : {}),
        ...(reply.event?.did === "added" ? { event: { ...reply.event, server: { ...reply.event.server, url: r(reply.event.server.url) } } } : {}),
      };
    case "fact-decided":
      return { ...reply, fact: r(reply.fact) };
    case "reset-ask":
    case "reset-cancelled":
    // Settings: model names, policies and people's ids, set by the operator or the Worker.
    case "policy":
    case "model":
    case "usage":
    // Facts are redacted by the Worker before they are kept.
    case "memory":
    // A repository's name and branch, checked against GitHub's and git's rules.
    case "repo":
      return reply;
  }
}

/**
 * A live answer as it may be shown: redacted, and its text cut after the last
 * whitespace. A secret can arrive split across deltas and is only recognised
 * whole, so the last word waits for the next delta, unless the Worker said a
 * blank follows it (`wordEnd`). The first `settled` characters are known whole
 * (text before a command: a secret does not go on past a `<run>` tag);
 * Infinity (the turn ended) shows all of it.
 */
export function redactLive(answer: LiveAnswer, secrets: readonly string[], settled = 0): LiveAnswer {
  const trimmed = secrets.map((s) => s.trim()).filter(Boolean);
  // A spelling of a secret or a token broken by a blank or a line may go on in the next delta: it waits too.
  const hold = (text: string, end: number) => openShapeAt(text, openVariantAt(text, end, trimmed));
  const held = answer.wordEnd ? endBeforeBlank(answer.text, " ", hold, (text, end) => openShapeAt(text, end, false)) : hold(answer.text, lastBoundary(answer.text));
  const text = answer.text.slice(0, Math.max(settled, held));
  return { text: redactSecrets(text, secrets), runs: answer.runs.map((run) => redactLiveRun(run, secrets)) };
}

function redactLiveRun(run: LiveRun, secrets: readonly string[]): LiveRun {
  const cmd = redactSecrets(run.cmd, secrets);
  return run.state === "running" ? { ...run, cmd } : { ...run, cmd, result: redactRun(run.result, secrets) };
}

function lastBoundary(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (/\s/.test(text[i])) return i + 1;
  return 0;
}

const wrapped = new WeakSet<ChatSurface>();

/** `surface` with everything it is handed redacted first; a surface already wrapped is returned as it is. */
export function redacting(surface: ChatSurface, secrets: readonly string[] = []): ChatSurface {
  if (wrapped.has(surface)) return surface;
  const shown = (reply: Reply) => redactReply(reply, secrets);
  const { live, files, queued, postSecret } = surface;
  const out: ChatSurface = {
    post: (reply) => surface.post(shown(reply)),
    edit: (ref, reply) => surface.edit(ref, shown(reply)),
    postPrivate: (reply) => surface.postPrivate(shown(reply)),
    ...(postSecret ? { postSecret: (reply: Reply) => postSecret.call(surface, shown(reply)) } : {}),
    showProgress: () => surface.showProgress(),
    ...(files ? { files: { ...files, send: (list, comment, after) => files.send(list, comment === undefined ? undefined : redactSecrets(comment, secrets), after) } } : {}),
    ...(queued ? { queued: (note) => queued.call(surface, redactSecrets(note, secrets)) } : {}),
    ...(live ? { live: (onPosted, question) => redactingView(live.call(surface, onPosted, question === undefined ? undefined : redactSecrets(question, secrets)), secrets) } : {}),
  };
  wrapped.add(out);
  return out;
}

/** `view` handed each live answer redacted (its last word held back until whole), and the final reply redacted. */
export function redactingView(view: LiveView, secrets: readonly string[]): LiveView {
  let last: LiveAnswer | null = null;
  let settled = 0;
  return {
    update(answer) {
      // A command started: the text written before it is whole.
      if (answer.runs.length > (last?.runs.length ?? 0)) settled = answer.text.length;
      last = answer;
      view.update(redactedWhenRead(answer, secrets, settled));
    },
    finish: (reply) => view.finish(redactReply(reply, secrets), last ? redactLive(last, secrets, Infinity) : undefined),
  };
}

/**
 * `answer` redacted on first read: a surface paces what it shows (about once a
 * second) and reads only the newest snapshot, while the stream may send
 * hundreds, and redacting the whole text for each would cost ~ms apiece.
 */
function redactedWhenRead(answer: LiveAnswer, secrets: readonly string[], settled: number): LiveAnswer {
  let shown: LiveAnswer | null = null;
  const read = () => (shown ??= redactLive(answer, secrets, settled));
  return {
    get text() {
      return read().text;
    },
    get runs() {
      return read().runs;
    },
  };
}
