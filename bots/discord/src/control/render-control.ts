import {
  type AuditEntry,
  auditTitle,
  describeAuditEntry,
  describeModel,
  describePolicy,
  describeRepoReply,
  describeToolsReply,
  describeUsage,
  memoryText,
  type MemoryReply,
  type RepoEvent,
  type RepoResponse,
  type ToolsEvent,
  type ToolsListing,
  type UsageResponse,
  type Naming,
  type PolicySource,
  type RunPolicy,
} from "@duet/shared";

/** The run policy and the audit trail in Discord's markdown. */

/** How Discord names a person, shows a command and a label in the shared sentences. */
export const NAMING: Naming = {
  person: (id) => (/^\d+$/.test(id) ? `<@${id}>` : `**${id.replace(/[*_`<>@]/g, "").slice(0, 40) || "someone"}**`),
  command: (cmd) => `\`${cmd.replace(/`/g, "'")}\``,
  label: (name) => name.replace(/[*_`~|<>@\\]/g, ""),
};

export function renderModel(r: { model: string; choices: string[]; source?: PolicySource; setBy?: string }): string {
  return `🧠 ${describeModel(r, NAMING)}`;
}

/** As NAMING, the memory commands spelled with their options (`/duet remember fact:…`, `/duet forget number:…`). */
const MEMORY_NAMING: Naming = { ...NAMING, duet: (words) => `\`/duet ${words.replace(/^remember /, "remember fact:").replace(/^forget /, "forget number:")}\`` };

export function renderMemory(reply: MemoryReply): string {
  return `📌 ${memoryText(reply, MEMORY_NAMING)}`;
}

/** As NAMING, `/duet repo` spelled with its option (`/duet repo name:owner/name`). */
export const REPO_NAMING: Naming = { ...NAMING, duet: (words) => `\`/duet ${words.replace(/^repo /, "repo name:")}\`` };

export function renderRepo(r: { repo: RepoResponse; event?: RepoEvent }): string {
  return `📦 ${describeRepoReply(r.repo, r.event, REPO_NAMING)}`;
}

/** As NAMING, `/duet tools` spelled with its option (`/duet tools what:add …`). */
export const TOOLS_NAMING: Naming = { ...NAMING, duet: (words) => `\`/duet ${words.replace(/^tools /, "tools what:")}\`` };

export function renderTools(r: { listing?: ToolsListing; event?: ToolsEvent }): string {
  return `🧰 ${describeToolsReply(r, TOOLS_NAMING)}`;
}

export function renderUsage(u: UsageResponse): string {
  return `📊 ${describeUsage(u, NAMING)}`;
}

export function renderPolicy(runPolicy: RunPolicy, setBy: string | undefined, source?: PolicySource): string {
  return `🚦 ${describePolicy(runPolicy, setBy, NAMING, source).replace(/\*(auto|approve)\*/, "**$1**")}`;
}

export function renderAudit(entries: AuditEntry[], total: number): string {
  return [`**${auditTitle(entries.length, total)}**`, ...entries.map((e) => `• ${describeAuditEntry(e, NAMING)}`)].join("\n");
}
