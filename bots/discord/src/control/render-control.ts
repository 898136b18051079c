import { type AuditEntry, auditTitle, describeAuditEntry, describePolicy, type Naming, type PolicySource, redactSecrets, type RunPolicy } from "@duet/shared";

/** The run policy and the audit trail in Discord's markdown. */

export function naming(secrets: readonly string[]): Naming {
  return {
    person: (id) => (/^\d+$/.test(id) ? `<@${id}>` : `**${id.replace(/[*_`<>@]/g, "").slice(0, 40) || "someone"}**`),
    command: (cmd) => `\`${redactSecrets(cmd, secrets).replace(/`/g, "'")}\``,
  };
}

export function renderPolicy(runPolicy: RunPolicy, setBy: string | undefined, source?: PolicySource): string {
  return `🚦 ${describePolicy(runPolicy, setBy, naming([]), source).replace(/\*(auto|approve)\*/, "**$1**")}`;
}

export function renderAudit(entries: AuditEntry[], total: number, secrets: readonly string[]): string {
  return [`**${auditTitle(entries.length, total)}**`, ...entries.map((e) => `• ${describeAuditEntry(e, naming(secrets))}`)].join("\n");
}
