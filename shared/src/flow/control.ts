import type { DuetCommand } from "../commands/commands.ts";
import { describeNetwork } from "../format/network.ts";
import { DuetError } from "../wire/errors.ts";
import type { RunPolicy, RunResult, ExecResult } from "../wire/schemas.ts";
import { OWN_PROPOSAL } from "../words/notes.ts";
import { attempt, failure, outcome } from "./attempt.ts";
import type { Reply } from "./reply.ts";
import type { ChatSurface, PostedRef } from "./surface.ts";
import type { Asker, FlowDeps, GuardedAction, Outcome } from "./types.ts";
import { redacting } from "./redacting.ts";
import { show } from "./audience.ts";
import { within } from "../bot/within.ts";

/**
 * The room's controls, once for every front end: who may do what (the front
 * end's Permit answers; the flow refuses), the run policy, the audit trail, a
 * Run or Skip click on a proposed command, and help that says how the room is
 * set up.
 */

/** The guarded action a command needs, if any: a front end that must choose a reply's visibility first asks before. */
export function guardOf(command: DuetCommand): GuardedAction | null {
  if (command.kind === "run" || command.kind === "reset") return command.kind;
  // A scheduled ask may run commands with nobody watching: who may schedule is who may run.
  if (command.kind === "schedule" || command.kind === "unschedule") return "run";
  // Switching the model is allowed to whoever may change the run policy.
  if ((command.kind === "policy" && command.runPolicy) || (command.kind === "model" && command.model)) return "policy";
  // Linking or unlinking a repository too: it changes what every turn here works on. Syncing
  // it runs git in the room's sandbox, as a command does: who may sync is who may run.
  if (command.kind === "repo" && "change" in command && command.change) return command.change === "sync" ? "run" : "policy";
  // And changing the tool servers: a tool can act as a command can.
  if (command.kind === "tools" && "change" in command && command.change) return "policy";
  return null;
}

/** Audit entries `/duet audit` shows: the latest, so the answer stays one screen. */
export const AUDIT_SHOWN = 20;

/** How long help waits for the Worker's settings before it answers without them. */
export const HELP_SETTINGS_WAIT_MS = 2_500;

const WHAT: Record<GuardedAction, string> = {
  run: "run commands with `/duet run` here. You can still ask Duet questions.",
  approve: "run or skip the commands Duet proposes here; nothing was run.",
  policy: "change the run policy here.",
  reset: "reset Duet here.",
};

/** The sentence a refused person sees: what they tried and who may. */
export function refusalText(action: GuardedAction, whoMay: string): string {
  return `Only ${whoMay} may ${WHAT[action]}`;
}

/** Runs `then` when the asker may do `action`; else tells them only, and nothing else happens. */
export async function guarded(surface: ChatSurface, asker: Asker, action: GuardedAction, then: () => Promise<Outcome>, what = WHAT[action]): Promise<Outcome> {
  const whoMay = await asker.permit?.(action);
  if (!whoMay) return then();
  return outcome(true, await show(surface, "refusal", false, { kind: "refused", text: `Only ${whoMay} may ${what}` }));
}

/**
 * `/duet policy`: shows the room's run policy to the asker, or sets it (allowed
 * people only) and says so to everyone, since it changes what Duet does for all.
 */
export async function policy(deps: FlowDeps, surface: ChatSurface, asker: Asker, runPolicy?: RunPolicy): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  if (!runPolicy) {
    const { reply, ok } = await attempt(deps, "policy", asker.room, async () => {
      const { runPolicy: current, source } = await deps.worker.policy(asker.room);
      return { kind: "policy", runPolicy: current, ...(source ? { source } : {}) };
    });
    return outcome(ok, await show(surface, "policy", false, reply));
  }
  return guarded(surface, asker, "policy", async () => {
    const { reply, ok } = await attempt(deps, "policy", asker.room, async () => {
      const set = await deps.worker.setPolicy(asker.room, { runPolicy, userId: asker.user });
      return { kind: "policy", runPolicy: set.runPolicy, setBy: asker.user };
    });
    return outcome(ok, await show(surface, "policy", ok, reply));
  });
}

/** `/duet audit`: the room's latest audited events, for the asker only. */
export async function audit(deps: FlowDeps, surface: ChatSurface, asker: Asker): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  const { reply, ok } = await attempt(deps, "audit", asker.room, async () => {
    const { entries } = await deps.worker.audit(asker.room);
    return { kind: "audit", entries: entries.slice(-AUDIT_SHOWN), total: entries.length };
  });
  return outcome(ok, await show(surface, "audit", ok, reply));
}

/** A Run or Skip click: which proposed command, and the message that shows it. */
export interface Decision {
  approvalId: string;
  decision: "run" | "skip";
  message: PostedRef;
}

/** A decided command's result as a direct run's, so its output is shown the same way. */
function execOf(run: RunResult): ExecResult {
  const failed = run.error !== undefined || run.exitCode === null;
  return {
    stdout: run.stdout,
    stderr: run.error !== undefined ? [run.stderr, run.error].filter(Boolean).join("\n") : run.stderr,
    exitCode: run.exitCode,
    success: !failed && run.exitCode === 0,
    truncated: run.truncated,
    durationMs: run.durationMs,
  };
}

/**
 * Runs or skips a proposed command for an allowed person. The proposal's message
 * then shows who decided, and a run's output follows in the conversation. An
 * expired, already decided or unknown approval (or any failure) is told to the
 * clicker only and changes nothing.
 */
export async function decide(deps: FlowDeps, surface: ChatSurface, asker: Asker, click: Decision): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  return guarded(surface, asker, "approve", async () => {
    let decided;
    try {
      const own = deps.approveOwn === false ? { approveOwn: false } : {};
      decided = await deps.worker.decide(asker.room, click.approvalId, { decision: click.decision, userId: asker.user, ...own });
    } catch (err) {
      if (err instanceof DuetError && err.code === "own_proposal") {
        await show(surface, "decide", false, { kind: "refused", text: OWN_PROPOSAL });
        return "failed";
      }
      // Expired (410), already decided (409), unknown (404) or any failure: nothing changed, so only the clicker hears.
      await show(surface, "decide", false, failure(deps, "decision", asker.room, err));
      return "failed";
    }
    deps.roomUsed?.(asker.room);
    const edited = await surface.edit(click.message, { kind: "decided", approval: decided.approval });
    if (!decided.run) return outcome(true, edited);
    const posted = await show(surface, "decide", true, { kind: "ran", cmd: decided.run.cmd, result: execOf(decided.run), user: asker.user });
    return outcome(true, posted);
  });
}

/**
 * Help for the asker only, saying whether the sandbox has network and the room's
 * run policy when the Worker answers quickly; without them when it does not.
 * Help after a typing mistake (`problem`) is the usage alone: bad input never
 * reaches the Worker.
 */
export async function helpWithSettings(deps: FlowDeps, surface: ChatSurface, asker: Asker | undefined, problem?: string): Promise<Outcome> {
  surface = redacting(surface, deps.secrets);
  if (problem) return outcome(true, await show(surface, "help", false, { kind: "help", problem }));
  const [info, current, model] = await Promise.all([
    within(deps.worker.info().catch(() => undefined), HELP_SETTINGS_WAIT_MS),
    asker ? within(deps.worker.policy(asker.room).catch(() => undefined), HELP_SETTINGS_WAIT_MS) : Promise.resolve(undefined),
    asker ? within(deps.worker.model(asker.room).catch(() => undefined), HELP_SETTINGS_WAIT_MS) : Promise.resolve(undefined),
  ]);
  const reply: Reply = {
    kind: "help",
    ...(problem ? { problem } : {}),
    ...(info ? { network: describeNetwork(info) } : {}),
    ...(current ? { runPolicy: current.runPolicy } : {}),
    ...(model ? { model: model.model } : {}),
  };
  return outcome(true, await show(surface, "help", true, reply));
}
