import type { AuditEntry, DecidedApproval, PolicySource, RunPolicy } from "../wire/schemas.ts";

/**
 * The run policy, the audit trail and decisions in words every front end
 * shares; each passes how it names a person (a Slack or Discord mention, a
 * plain id in a terminal) and how it shows a command (inline code, escaped for
 * its markup).
 */

export interface Naming {
  person(userId: string): string;
  command(cmd: string): string;
  /** A display name as plain text in this markup (escaped so it can neither mention nor format); as is when absent. */
  label?(name: string): string;
  /**
   * How this surface spells one of Duet's commands (`words`: "unschedule <id>"),
   * marked up as a command; absent, the chat's slash command (`/duet unschedule <id>`).
   */
  duet?(words: string): string;
}

/** `words` as the surface spells a Duet command (see Naming.duet). */
export function duetCommand(name: Naming, words: string): string {
  return name.duet ? name.duet(words) : `\`/duet ${words}\``;
}

/** Characters of a command shown in an audit line or a decision; the whole command is in the room's history. */
export const COMMAND_SHOWN_CHARS = 120;

/** The command cut to one short line, for a list. */
export function shortCommand(cmd: string): string {
  const flat = cmd.replace(/\s+/g, " ").trim();
  return flat.length > COMMAND_SHOWN_CHARS ? `${flat.slice(0, COMMAND_SHOWN_CHARS - 1)}…` : flat;
}

const POLICY_MEANING: Record<RunPolicy, string> = {
  auto: "Duet runs the commands it proposes at once",
  approve: "each command Duet proposes waits for someone allowed to click Run or Skip",
};

/** Where a policy shown comes from, when the Worker said. */
const POLICY_SOURCE: Record<PolicySource, string> = {
  room: " (set here)",
  channel: ", from this thread's channel",
  default: " (the default)",
};

/** "The run policy here is approve, from this thread's channel: …", or who just set it. */
export function describePolicy(runPolicy: RunPolicy, setBy: string | undefined, name: Naming, source?: PolicySource): string {
  const meaning = POLICY_MEANING[runPolicy];
  if (setBy) return `${name.person(setBy)} set the run policy to *${runPolicy}*: ${meaning}.`;
  return `The run policy here is *${runPolicy}*${source ? POLICY_SOURCE[source] : ""}: ${meaning}.`;
}

function when(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function ending(e: AuditEntry, who: (id: string | undefined) => string): string {
  if (e.exitCode === undefined) return "";
  if (e.stopped) return ` (stopped by ${who(e.stoppedBy)}${e.durationMs !== undefined ? ` after ${e.durationMs} ms` : ""})`;
  const code = e.exitCode === null ? "outcome unknown" : `exit ${e.exitCode}`;
  return e.durationMs !== undefined ? ` (${code}, ${e.durationMs} ms)` : ` (${code})`;
}

/** A GitHub login, as plain text: it is no chat user, so it is never a mention. */
function githubLogin(login: string | undefined, name: Naming): string {
  if (!login) return "someone";
  return name.label ? name.label(login) : login;
}

/** One audited event as one line: when, what, who asked, who decided, how it ended. */
export function describeAuditEntry(e: AuditEntry, name: Naming): string {
  const who = (id: string | undefined) => (id ? name.person(id) : "someone");
  const cmd = name.command(shortCommand(e.cmd ?? ""));
  const what = (() => {
    switch (e.kind) {
      case "direct":
        return `${who(e.requestedBy)} ran ${cmd}`;
      case "auto":
        return `${cmd} ran automatically, asked by ${who(e.requestedBy)}`;
      case "approved":
        return `${cmd} run by ${who(e.decidedBy)}, proposed for ${who(e.requestedBy)}`;
      case "skipped":
        return `${cmd} skipped by ${who(e.decidedBy)}, proposed for ${who(e.requestedBy)}`;
      case "expired":
        return `${cmd} expired${e.expiresAt !== undefined ? ` at ${when(e.expiresAt)}` : ""} with nobody deciding, proposed for ${who(e.requestedBy)}; it never ran`;
      case "policy":
        return `${who(e.requestedBy)} set the run policy to ${e.runPolicy ?? "?"}`;
      case "model":
        return `${who(e.requestedBy)} switched the model to ${e.model ?? "?"}`;
      case "reset":
        return `${who(e.requestedBy)} reset Duet`;
      case "scheduled":
        return `${who(e.requestedBy)} scheduled ${e.scheduleId ?? "?"} (${e.when ?? "?"}): ${name.command(shortCommand(e.ask ?? ""))}`;
      case "unscheduled":
        return `${who(e.requestedBy)} removed schedule ${e.scheduleId ?? "?"}`;
      case "repo":
        return `${who(e.requestedBy)} linked the repository ${name.command(e.repo ?? "?")}${e.branch ? `, branch ${name.command(e.branch)}` : ""}`;
      case "repo-removed":
        return `${who(e.requestedBy)} unlinked the repository ${name.command(e.repo ?? "?")}`;
      case "scheduled-run":
        return `schedule ${e.scheduleId ?? "?"} asked ${name.command(shortCommand(e.ask ?? ""))}, set by ${who(e.requestedBy)}`;
      case "pr-proposed":
        return `${who(e.requestedBy)} proposed a pull request to ${name.command(e.repo ?? "?")} from ${name.command(e.branch ?? "?")}: ${name.command(shortCommand(e.title ?? ""))}`;
      case "pr-skipped":
        return `${who(e.requestedBy)} skipped the pull request from ${name.command(e.branch ?? "?")}: ${name.command(shortCommand(e.title ?? ""))}`;
      case "pr-opened":
        return `${who(e.requestedBy)} opened the pull request ${e.url ?? "?"} from ${name.command(e.branch ?? "?")}`;
      case "pr-merged":
        return `${githubLogin(e.decidedBy, name)} merged the pull request ${e.url ?? "?"} from ${name.command(e.branch ?? "?")} on GitHub`;
      case "pr-closed":
        return `${githubLogin(e.decidedBy, name)} closed the pull request ${e.url ?? "?"} from ${name.command(e.branch ?? "?")} without merging, on GitHub`;
      case "remember":
        return `${who(e.requestedBy)} pinned a fact: ${name.command(shortCommand(e.fact ?? ""))}`;
      case "forget":
        return `${who(e.requestedBy)} unpinned a fact: ${name.command(shortCommand(e.fact ?? ""))}`;
      case "tools-added":
        return `${who(e.requestedBy)} added the tool server ${name.command(e.server ?? "?")} (${name.command(e.url ?? "?")}) to the workspace`;
      case "tools-removed":
        return `${who(e.requestedBy)} removed the tool server ${name.command(e.server ?? "?")} from the workspace`;
    }
  })() satisfies string;
  return `${when(e.at)} · ${what}${ending(e, who)}`;
}

/** The heading of `/duet audit`. */
export function auditTitle(shown: number, total: number): string {
  if (total === 0) return "Nothing audited in this room yet: no command has run, no policy was set.";
  return shown < total ? `Last ${shown} of ${total} audited events in this room, oldest first:` : `Audited events in this room, oldest first:`;
}

/** What a proposal shows once decided, in place of its buttons. */
export function describeDecision(a: DecidedApproval, name: Naming): string {
  return a.decision === "run" ? `${name.person(a.decidedBy)} ran ${name.command(shortCommand(a.cmd))}` : `${name.person(a.decidedBy)} skipped ${name.command(shortCommand(a.cmd))}`;
}

/** The line above a proposal's buttons. */
export function proposalHint(count: number): string {
  return count === 1 ? "Duet proposes this command; nothing runs until someone allowed clicks Run:" : `Duet proposes ${count} commands; none runs until someone allowed clicks Run:`;
}
