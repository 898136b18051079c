import type { DuetCommand } from "../commands/commands.ts";
import { sanitizeChatText } from "../text/sanitize.ts";
import { answeredElsewhere, failure, outcome, withProgress } from "./attempt.ts";
import { audit, guarded, helpWithSettings, policy } from "./control.ts";
import { applyLiveEvent, emptyLiveAnswer } from "../live/live-answer.ts";
import { TEXT_MAX_CHARS } from "../wire/limits.ts";
import { EMPTY_QUESTION_HINT } from "../words/hints.ts";
import { tooLong } from "../words/usage.ts";
import { queuedNote } from "../words/queue.ts";
import { ANSWER_COMING_NOTE } from "../words/coming.ts";
import { DuetError } from "../wire/errors.ts";
import { STOP_WORDS } from "../words/stop.ts";
import type { Reply } from "./reply.ts";
import { schedule, schedules, unschedule } from "./schedules.ts";
import { model, usage } from "./settings.ts";
import { forget, memory, remember } from "./memory.ts";
import { askBeforeReset } from "./reset-choice.ts";
import { repo } from "./repo.ts";
import { pr } from "./pr.ts";
import { tools } from "./tools.ts";
import { readPrArgs } from "../commands/pr-command.ts";
import type { ChatSurface, LiveView, PostedRef, Unqueue } from "./surface.ts";
import type { MessageRequest } from "../wire/schemas.ts";
import type { Asker, FlowDeps, Outcome } from "./types.ts";
import type { AskPlace } from "../bot/ask-order.ts";
import { getFile, sendAttachments } from "./files.ts";
import { redacting } from "./redacting.ts";
import { show } from "./audience.ts";
import { askSpan, tracedSurface } from "./traced.ts";
import type { Span } from "../trace/span.ts";

/**
 * The chat flow, once for every front end: one function per command, from
 * "someone asked" to "the answer is in the place they asked". A front end turns
 * its event into an Asker and a command, and gives a ChatSurface; it never
 * calls the Worker itself.
 */

/** A question for the model; an empty one (after cleaning) gets `emptyHint` and never reaches the Worker. */
export async function ask(deps: FlowDeps, surface: ChatSurface, asker: Asker, text: string, emptyHint = EMPTY_QUESTION_HINT): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  const inLine = asker.inLine ?? deps.order?.take(asker.room);
  const question = sanitizeChatText(text);
  if (!question) {
    inLine?.ended();
    return outcome(true, await show(surface, "ask", false, { kind: "hint", text: emptyHint }));
  }
  // Measured here as the typed `ask` is, so every front end says it in one way, before the Worker refuses it in its own.
  if (question.length > TEXT_MAX_CHARS) {
    inLine?.ended();
    return outcome(false, await show(surface, "ask", false, { kind: "error", code: "payload_too_large", text: tooLong("question", question.length, TEXT_MAX_CHARS) }));
  }
  const request = {
    text: question, userId: asker.user, ...(asker.name ? { userName: asker.name } : {}), idempotencyKey: asker.key, ...(asker.deliver ? { deliver: asker.deliver } : {}),
  };
  // Until it is confirmed, the outbox may offer this answer too: this process's delivery leaves it to this ask.
  const release = asker.deliver ? deps.answering?.hold(asker.room, asker.key) : undefined;
  const span = askSpan(deps.tracing, asker.span, asker.room);
  try {
    return await askTurn(deps, tracedSurface(surface, span), asker, question, request, span, inLine);
  } finally {
    release?.();
    inLine?.ended();
    span.end();
    if (!asker.span) deps.tracing?.flush();
  }
}

async function askTurn(deps: FlowDeps, surface: ChatSurface, asker: Asker, question: string, request: MessageRequest, span: Span, inLine?: AskPlace): Promise<Outcome> {
  // The final confirm waits for these: a bot that dies after it was sent has told the room the live message's id.
  const reports: Promise<void>[] = [];
  const view = deps.streaming !== false ? surface.live?.((ref) => (inLine?.shown(), void reports.push(reportPosted(deps, asker, ref))), question) : undefined;
  if (view) return askLive(deps, surface, asker, question, view, request, reports, span, inLine);
  return askWhole(deps, surface, asker, question, request, span, inLine);
}

/**
 * The turn shown once it is answered. Its stream is followed all the same, for
 * its status line: the room took the turn. A connection lost after that is
 * told as a live answer's is (the answer is coming), and one lost before it as
 * a failure (try again).
 */
async function askWhole(deps: FlowDeps, surface: ChatSurface, asker: Asker, question: string, request: MessageRequest, span: Span, inLine?: AskPlace): Promise<Outcome> {
  const admission = admissionOf(inLine);
  let coming = false;
  const { ok, reply } = await withProgress(deps, surface, "ask", asker.room, async () => {
    await inLine?.ready();
    const call = span.child("POST /message", { kind: "client" });
    try {
      const opts = { ...claimOf(asker), ...orderOf(inLine), traceparent: call.traceparent, whole: true, onAnswered: admission.heard };
      const answer = await deps.worker.messageStream(asker.room, request, () => undefined, opts);
      deps.answering?.answered(asker.room, asker.key);
      deps.roomUsed?.(asker.room);
      return { kind: "answer", answer, question, user: asker.user };
    } catch (err) {
      coming = answerComing(deps, asker, admission.taken, err);
      if (!coming) throw err;
      return { kind: "hint", text: ANSWER_COMING_NOTE };
    } finally {
      call.end();
    }
  }, span);
  if (answeredElsewhere(reply)) return "elsewhere";
  await inLine?.shownBefore();
  const showing = show(surface, "ask", ok && !coming, reply);
  const attaching = ok ? attach(deps, surface, asker, reply, showing) : undefined;
  const posted = await showing;
  inLine?.shown();
  if (coming) return comingIn(deps, asker, posted);
  if (ok) await answered(deps, surface, asker, posted, reply, attaching);
  return outcome(ok, posted);
}

/** The files the model attached to an answer, on their way while the answer is posted (`showing`); they follow it. */
function attach(deps: FlowDeps, surface: ChatSurface, asker: Asker, reply: Reply, showing: Promise<PostedRef | null>): Promise<void> | undefined {
  if (reply.kind !== "answer" || !reply.answer.attachments?.length) return undefined;
  // Awaited only once the answer is posted: a failure meanwhile must not go unheard.
  return sendAttachments(deps, surface, asker, reply.answer, showing).catch((err) => deps.log(`The files of an answer in ${asker.room} were not posted: ${(err as Error).message}`));
}

/** After an answer is posted: the room stops keeping it, and the files the model attached (`attaching`) follow it. */
async function answered(deps: FlowDeps, surface: ChatSurface, asker: Asker, posted: PostedRef | null, reply: Reply, attaching?: Promise<void>): Promise<void> {
  await Promise.all([confirmPosted(deps, asker, posted), attaching]);
  // The model ended an answer whose commands ran with <pr>: its change is proposed after it, as `/duet pr` would.
  if (posted && reply.kind === "answer" && reply.answer.pr) {
    await pr(deps, surface, asker, { kind: "pr", ...readPrArgs(reply.answer.pr.title ?? "") });
    await confirmPosted(deps, asker, posted, true);
  }
}

/**
 * The answer is in the chat: the room stops keeping it for delivery. A failed
 * confirm only means a later edit of the same message. `proposed`: the
 * proposal after it (the model's `<pr>`) is in the chat too; until then the
 * room offers it to the outbox once this bot's lease on it ends.
 */
async function confirmPosted(deps: FlowDeps, asker: Asker, posted: PostedRef | null, proposed = false): Promise<void> {
  if (!asker.deliver || !posted) return;
  try {
    await deps.worker.confirmDelivery(asker.room, { key: asker.key, messageId: posted.id, ...(proposed ? { proposed } : {}) });
  } catch (err) {
    deps.log(`The answer in ${asker.room} was posted but could not be confirmed: ${(err as Error).message}`);
  }
}

/**
 * A live answer's first message is posted: the room keeps its id with the
 * answer, so a delivery after this bot died edits it instead of posting a second.
 */
async function reportPosted(deps: FlowDeps, asker: Asker, posted: PostedRef): Promise<void> {
  if (!asker.deliver) return;
  try {
    await deps.worker.confirmDelivery(asker.room, { key: asker.key, messageId: posted.id, final: false });
  } catch (err) {
    deps.log(`The live answer in ${asker.room} was posted but the room could not be told: ${(err as Error).message}`);
  }
}

/**
 * The same turn, shown as it happens: each event updates the view, and the
 * answer (or the failure) replaces it. Progress shows until the first event;
 * from then on the growing answer is the progress.
 */
async function askLive(deps: FlowDeps, surface: ChatSurface, asker: Asker, question: string, view: LiveView, request: MessageRequest, reports: Promise<void>[], span: Span, inLine?: AskPlace): Promise<Outcome> {
  let live = emptyLiveAnswer();
  const stopProgress = surface.showProgress();
  let progressStopped: Promise<void> | null = null;
  const place = queuePlace(deps, surface, asker);
  let reply: Reply;
  let ok = true;
  const admission = admissionOf(inLine);
  let coming = false;
  // The answer asked before this one in the room shows first; meanwhile this one grows unshown.
  const before = inLine?.shownBefore() ?? null;
  let mayShow = before === null;
  let begun = false;
  void before?.then(() => {
    mayShow = true;
    if (begun) view.update(live);
  });
  const call = span.child("POST /message", { kind: "client", attributes: { "duet.stream": true } });
  try {
    await inLine?.ready();
    const answer = await deps.worker.messageStream(asker.room, request, (e) => {
      // Waiting is not answering: progress goes on, and the live answer has not begun.
      if (e.event === "queued") return place.told(e.data.ahead);
      place.started();
      progressStopped ??= stopProgress();
      live = applyLiveEvent(live, e);
      begun = true;
      if (mayShow) view.update(live);
    }, {
      ...claimOf(asker),
      ...orderOf(inLine),
      traceparent: call.traceparent,
      onAnswered: admission.heard,
    });
    // From here the answer waits on the channel's pace: held in the Worker so no other replica delivers it.
    deps.answering?.answered(asker.room, asker.key);
    deps.roomUsed?.(asker.room);
    reply = { kind: "answer", answer, question, user: asker.user };
  } catch (err) {
    coming = answerComing(deps, asker, admission.taken, err);
    reply = coming ? { kind: "hint", text: ANSWER_COMING_NOTE } : failure(deps, "ask", asker.room, err, { span });
    ok = false;
  } finally {
    call.end();
    await Promise.all([progressStopped ?? stopProgress(), place.started()]);
  }
  // Refused before any event: the live view has shown nothing, and is left unshown.
  if (answeredElsewhere(reply)) return "elsewhere";
  await before;
  const finishing = view.finish(reply);
  const attaching = ok ? attach(deps, surface, asker, reply, finishing) : undefined;
  const posted = await finishing;
  inLine?.shown();
  await Promise.all(reports);
  if (coming) return comingIn(deps, asker, posted);
  if (ok) await answered(deps, surface, asker, posted, reply, attaching);
  return outcome(ok, posted);
}

/**
 * Whether the room took the turn: heard as each attempt is answered (a stream
 * began), after which the room finishes the turn whatever happens to this
 * connection. The next ask in line goes once one attempt was answered.
 */
function admissionOf(inLine?: AskPlace): { readonly taken: boolean; heard(taken: boolean): void } {
  let taken = false;
  return {
    get taken() {
      return taken;
    },
    heard(admitted) {
      taken ||= admitted;
      inLine?.admitted();
    },
  };
}

/**
 * Lost the Worker after the room took the turn (a restart): a room that keeps
 * the answer for delivery finishes the turn and posts it where the note goes,
 * so the person is told it is coming, never to ask again.
 */
function answerComing(deps: FlowDeps, asker: Asker, taken: boolean, err: unknown): boolean {
  const coming = taken && Boolean(asker.deliver) && lostWorker(err);
  if (coming) deps.log(`Lost the Worker during the answer in ${asker.room} (${(err as Error).message}); the room will deliver it`);
  return coming;
}

/**
 * The note that the answer is coming is shown: the room is told where it is.
 * The report wakes the room as soon as the Worker is back (it resumes the turn
 * then, not at its next alarm), and names the message the answer goes into.
 */
async function comingIn(deps: FlowDeps, asker: Asker, posted: PostedRef | null): Promise<Outcome> {
  if (posted) await reportPosted(deps, asker, posted);
  return "coming";
}

/**
 * The asker's place in the room's queue: told once (the Worker says it once,
 * and a stream re-joined after a lost connection skips what was handed out),
 * its sign taken back when the answer starts. A surface that fails to say it
 * only logs: the answer still comes.
 */
function queuePlace(deps: FlowDeps, surface: ChatSurface, asker: Asker): { told(ahead: number): void; started(): Promise<void> } {
  let shown: Promise<Unqueue | void> | null = null;
  let takenBack: Promise<void> | null = null;
  const failed = (what: string) => (err: unknown) => void deps.log(`The queue note in ${asker.room} could not be ${what}: ${(err as Error)?.message ?? err}`);
  return {
    told(ahead) {
      if (shown || takenBack || !surface.queued) return;
      shown = surface.queued(queuedNote(ahead)).catch(failed("shown"));
    },
    started: () => (takenBack ??= shown ? shown.then((undo) => undo?.()).catch(failed("taken back")) : Promise.resolve()),
  };
}

/** Stops the room's running turn, whoever started it; its live answer ends as stopped. */
export async function stop(deps: FlowDeps, surface: ChatSurface, asker: Asker): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  try {
    const { stopped } = await deps.worker.stop(asker.room, asker.user);
    if (stopped) return outcome(true, await show(surface, "stop", true, { kind: "hint", text: STOP_WORDS.stopping }));
    return outcome(true, await show(surface, "stop", false, { kind: "hint", text: STOP_WORDS.nothingToStop }));
  } catch (err) {
    return outcome(false, await show(surface, "stop", false, failure(deps, "stop", asker.room, err)));
  }
}

/** A command run in the room's sandbox directly, without the model. */
export async function run(deps: FlowDeps, surface: ChatSurface, asker: Asker, cmd: string): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  const { reply, ok } = await withProgress(deps, surface, "run", asker.room, async () => {
    const res = await deps.worker.exec(asker.room, { cmd, userId: asker.user, idempotencyKey: asker.key });
    deps.roomUsed?.(asker.room);
    return { kind: "ran", cmd, result: res.result, user: asker.user };
  });
  return outcome(ok, await show(surface, "run", ok, reply));
}

/** The room's recent conversation, for the asker only. */
export async function history(deps: FlowDeps, surface: ChatSurface, asker: Asker): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  const { reply, ok } = await withProgress(deps, surface, "history", asker.room, async () => ({ kind: "history", messages: (await deps.worker.history(asker.room)).messages }));
  return outcome(ok, await show(surface, "history", ok, reply));
}

/**
 * Wipes the room's history and destroys its sandbox, and says so to everyone there.
 * Where the place has buttons and the room keeps pinned facts, it asks first (reset-choice.ts).
 */
export async function reset(deps: FlowDeps, surface: ChatSurface, asker: Asker, keepMemory?: boolean): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  if (asker.buttons && keepMemory === undefined) {
    const asked = await askBeforeReset(deps, surface, asker);
    if (asked) return asked;
  }
  const { reply, ok } = await withProgress(deps, surface, "reset", asker.room, async () => {
    // Says who reset it: the room's emptied audit starts with that.
    const res = await deps.worker.cleanup(asker.room, { userId: asker.user, ...(keepMemory ? { keepMemory } : {}) });
    return { kind: "reset", user: asker.user, errors: res.errors ?? [], ...(keepMemory ? { facts: "kept" as const } : {}) };
  });
  return outcome(ok, await show(surface, "reset", ok, reply));
}

/** How to use Duet, for the asker only, after what was wrong with what they typed. */
export async function help(surface: ChatSurface, problem?: string): Promise<Outcome> {
  surface = redacting(surface);
  return outcome(true, await show(surface, "help", !problem, { kind: "help", ...(problem ? { problem } : {}) }));
}

/** One parsed command through its flow. */
export function runCommand(deps: FlowDeps, surface: ChatSurface, asker: Asker, command: DuetCommand): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  switch (command.kind) {
    case "ask":
      return ask(deps, surface, asker, command.text);
    case "run":
      return guarded(surface, asker, "run", () => run(deps, surface, asker, command.cmd));
    case "history":
      return history(deps, surface, asker);
    case "reset":
      return guarded(surface, asker, "reset", () => reset(deps, surface, asker, command.keepMemory));
    case "policy":
      return policy(deps, surface, asker, command.runPolicy);
    case "audit":
      return audit(deps, surface, asker);
    case "model":
      return model(deps, surface, asker, command.model);
    case "usage":
      return usage(deps, surface, asker);
    case "repo":
      return repo(deps, surface, asker, command);
    case "pr":
      return pr(deps, surface, asker, command);
    case "tools":
      return tools(deps, surface, asker, command);
    case "stop":
      return stop(deps, surface, asker);
    case "get":
      return getFile(deps, surface, asker, command.path);
    case "schedule":
      return schedule(deps, surface, asker, command.when, command.ask);
    case "schedules":
      return schedules(deps, surface, asker);
    case "unschedule":
      return unschedule(deps, surface, asker, command.id);
    case "remember":
      return remember(deps, surface, asker, command.fact);
    case "memory":
      return memory(deps, surface, asker);
    case "forget":
      return forget(deps, surface, asker, command.n);
    case "help":
      return helpWithSettings(deps, surface, asker, command.problem);
  }
}

/** The Worker went away (a restart, a lost connection) rather than refusing or failing the turn. */
const lostWorker = (err: unknown): boolean => err instanceof DuetError && (err.code === "worker_unreachable" || err.code === "worker_timeout");

/** The claim an ask makes on its key, when its front end gives one (see Asker.claim). */
const claimOf = (asker: Asker): { claim?: string } => (asker.claim ? { claim: asker.claim } : {});

/** The ask's place in its process's line to the room, which the room admits in order. */
const orderOf = (inLine: AskPlace | undefined): { order?: string } => (inLine ? { order: inLine.ticket } : {});
