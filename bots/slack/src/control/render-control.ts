import {
  type AuditEntry,
  auditTitle,
  chunkMessage,
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
import { escapeSlack } from "../mrkdwn.ts";
import { SECTION_MAX_CHARS, section } from "../run-block.ts";
import { type Rendered, renderNotice } from "../rendered.ts";

/** The run policy and the audit trail as Slack messages. */

/** How Slack names a person, shows a command and a label in the shared sentences. */
export const NAMING: Naming = {
  person: (id) => `<@${id.replace(/[^A-Za-z0-9]/g, "")}>`,
  command: (cmd) => `\`${escapeSlack(cmd).replace(/`/g, "'")}\``,
  label: (name) => escapeSlack(name).replace(/[*_~`]/g, ""),
};

export function renderModel(r: { model: string; choices: string[]; source?: PolicySource; setBy?: string }): Rendered {
  return renderNotice(`:brain: ${describeModel(r, NAMING)}`);
}

export function renderMemory(reply: MemoryReply): Rendered {
  return renderNotice(`:pushpin: ${memoryText(reply, NAMING)}`);
}

export function renderRepo(r: { repo: RepoResponse; event?: RepoEvent }): Rendered {
  return renderNotice(`:package: ${describeRepoReply(r.repo, r.event, NAMING)}`);
}

export function renderTools(r: { listing?: ToolsListing; event?: ToolsEvent }): Rendered {
  return renderNotice(`:toolbox: ${describeToolsReply(r, NAMING)}`);
}

export function renderUsage(u: UsageResponse): Rendered {
  return renderNotice(`:bar_chart: ${describeUsage(u, NAMING)}`);
}

export function renderPolicy(runPolicy: RunPolicy, setBy: string | undefined, source?: PolicySource): Rendered {
  return renderNotice(`:vertical_traffic_light: ${describePolicy(runPolicy, setBy, NAMING, source)}`);
}

export function renderAudit(entries: AuditEntry[], total: number): Rendered {
  const title = auditTitle(entries.length, total);
  const lines = entries.map((e) => `• ${describeAuditEntry(e, NAMING)}`);
  const blocks = chunkMessage([`*${title}*`, ...lines].join("\n"), SECTION_MAX_CHARS).map(section);
  return { text: title, blocks, uploads: [] };
}
