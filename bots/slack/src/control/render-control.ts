import { type AuditEntry, auditTitle, chunkMessage, describeAuditEntry, describeModel, describePolicy, describeUsage, type UsageResponse, type Naming, type PolicySource, redactSecrets, type RunPolicy } from "@duet/shared";
import { escapeSlack } from "../mrkdwn.ts";
import { SECTION_MAX_CHARS, section } from "../run-block.ts";
import { type Rendered, renderNotice } from "../rendered.ts";

/** The run policy and the audit trail as Slack messages. */

export function naming(secrets: readonly string[]): Naming {
  return {
    person: (id) => `<@${id.replace(/[^A-Za-z0-9]/g, "")}>`,
    command: (cmd) => `\`${escapeSlack(redactSecrets(cmd, secrets)).replace(/`/g, "'")}\``,
    label: (name) => escapeSlack(name).replace(/[*_~`]/g, ""),
  };
}

export function renderModel(r: { model: string; choices: string[]; source?: PolicySource; setBy?: string }): Rendered {
  return renderNotice(`:brain: ${describeModel(r, naming([]))}`);
}

export function renderUsage(u: UsageResponse): Rendered {
  return renderNotice(`:bar_chart: ${describeUsage(u, naming([]))}`);
}

export function renderPolicy(runPolicy: RunPolicy, setBy: string | undefined, source?: PolicySource): Rendered {
  return renderNotice(`:vertical_traffic_light: ${describePolicy(runPolicy, setBy, naming([]), source)}`);
}

export function renderAudit(entries: AuditEntry[], total: number, secrets: readonly string[]): Rendered {
  const title = auditTitle(entries.length, total);
  const lines = entries.map((e) => `• ${describeAuditEntry(e, naming(secrets))}`);
  const blocks = chunkMessage([`*${title}*`, ...lines].join("\n"), SECTION_MAX_CHARS).map(section);
  return { text: title, blocks, uploads: [] };
}
