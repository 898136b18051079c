import { type AuditEntry, auditTitle, describeAuditEntry, describeModel, describePolicy, describeUsage, memoryText, type MemoryReply, type UsageResponse, type Naming, type PolicySource, type RunPolicy } from "@duet/shared";

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

export function renderMemory(reply: MemoryReply): string {
  return `📌 ${memoryText(reply, NAMING)}`;
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
