import { type AuditEntry, auditTitle, describeAuditEntry, describeModel, describePolicy, describeUsage, type UsageResponse, type Naming, type PolicySource, redactSecrets, type RunPolicy } from "@duet/shared";

/** The run policy and the audit trail in Discord's markdown. */

export function naming(secrets: readonly string[]): Naming {
  return {
    person: (id) => (/^\d+$/.test(id) ? `<@${id}>` : `**${id.replace(/[*_`<>@]/g, "").slice(0, 40) || "someone"}**`),
    command: (cmd) => `\`${redactSecrets(cmd, secrets).replace(/`/g, "'")}\``,
    label: (name) => name.replace(/[*_`~|<>@\\]/g, ""),
  };
}

export function renderModel(r: { model: string; choices: string[]; source?: PolicySource; setBy?: string }): string {
  return `🧠 ${describeModel(r, naming([]))}`;
}

export function renderUsage(u: UsageResponse): string {
  return `📊 ${describeUsage(u, naming([]))}`;
}

export function renderPolicy(runPolicy: RunPolicy, setBy: string | undefined, source?: PolicySource): string {
  return `🚦 ${describePolicy(runPolicy, setBy, naming([]), source).replace(/\*(auto|approve)\*/, "**$1**")}`;
}

export function renderAudit(entries: AuditEntry[], total: number, secrets: readonly string[]): string {
  return [`**${auditTitle(entries.length, total)}**`, ...entries.map((e) => `• ${describeAuditEntry(e, naming(secrets))}`)].join("\n");
}
