import { type AttachmentPayload, MessageFlags } from "discord.js";
import { ANSWER_NOTES, chunkMessage, type MessageResponse, NOTHING_TO_SAY, type Reply } from "@duet/shared";
import type { ComponentsStyle } from "./config.ts";
import type { ContainerChild, ContainerJson, RowJson, SeparatorJson } from "./components-json.ts";
import { answerParts, type Outgoing, renderReply } from "./render.ts";

/**
 * Answers as Discord's Components V2 messages (DISCORD_COMPONENTS=v2): one
 * container a message, holding a text display for the model's text, one per
 * command's block, the notes and the proposal, separators between those
 * groups, the output files, and the button rows (Stop, or Run and Skip).
 * The parts and their words are the classic renderer's (`answerParts`); only
 * the layout differs. A V2 message carries no content or embeds, and stays
 * V2 for good: every message of an answer is laid out here from its first post.
 *
 * Discord's limits: 40 components in a message, counted through the
 * container; 4,000 characters of text across it; 10 children in a container
 * (as discord.js 14.28's types document it). Past them the answer goes on in
 * more messages, code blocks kept whole, as the classic answer does past 2,000.
 */

export const IS_COMPONENTS_V2: number = MessageFlags.IsComponentsV2;
/** Text across a message's components. */
export const V2_TEXT_MAX = 4_000;
/** Components in a message, nested ones included. */
export const V2_COMPONENTS_MAX = 40;
/** Children of one container. */
export const CONTAINER_CHILDREN_MAX = 10;
/** Text a message's displays take: Discord's 4,000 less room for the buttons' labels and the joins of merged parts. */
export const V2_PAGE_TEXT_MAX = V2_TEXT_MAX - 200;

/** One V2 message before layout: groups of text (a separator between groups), its files and button rows. */
export interface V2Page {
  groups: string[][];
  files: AttachmentPayload[];
  rows: RowJson[];
}

const SEPARATOR: SeparatorJson = { type: 14, divider: true, spacing: 1 };

/**
 * The container of one page, within the child limit: separators go first,
 * then the parts of the largest group are joined (its last two, as one
 * display), then groups themselves, until the displays, files and rows fit.
 */
export function containerOf(page: V2Page): ContainerJson {
  let groups = page.groups.map((g) => g.filter(Boolean)).filter((g) => g.length > 0);
  const room = CONTAINER_CHILDREN_MAX - page.rows.length - page.files.length;
  const displays = () => groups.reduce((n, g) => n + g.length, 0);
  let separators = displays() + groups.length - 1 <= room;
  while (displays() + (separators ? groups.length - 1 : 0) > room && displays() > 1) {
    separators = false;
    const largest = groups.reduce((best, g, i) => (g.length > groups[best].length ? i : best), 0);
    if (groups[largest].length > 1) {
      const g = groups[largest];
      groups[largest] = [...g.slice(0, -2), g.slice(-2).join("\n\n")];
    } else {
      groups = [...groups.slice(0, -2), [groups.slice(-2).map((g) => g[0]).join("\n\n")]];
    }
  }
  const children: ContainerChild[] = [];
  groups.forEach((g, i) => {
    if (i > 0 && separators) children.push(SEPARATOR);
    for (const content of g) children.push({ type: 10, content });
  });
  if (children.length === 0) children.push({ type: 10, content: `(${NOTHING_TO_SAY})` });
  for (const f of page.files) children.push({ type: 13, file: { url: `attachment://${f.name}` } });
  children.push(...page.rows);
  return { type: 17, components: children };
}

/** A page as a message to send. */
export function v2Message(page: V2Page): Outgoing {
  return { content: "", files: page.files, components: [containerOf(page)], v2: true };
}

/**
 * Groups of text in pages of at most `max` characters: each part chunked
 * where a code block stays whole, a page filled in order before the next.
 */
export function pagesOfGroups(groups: string[][], max = V2_PAGE_TEXT_MAX): string[][][] {
  const pages: string[][][] = [[]];
  let size = 0;
  groups.forEach((group) => {
    let opened = false;
    for (const part of group.filter(Boolean)) {
      for (const piece of chunkMessage(part, max)) {
        if (size > 0 && size + piece.length > max) {
          pages.push([]);
          size = 0;
          opened = false;
        }
        const page = pages[pages.length - 1];
        if (!opened) page.push([]);
        opened = true;
        page[page.length - 1].push(piece);
        size += piece.length;
      }
    }
  });
  return pages;
}

/** Files on the last page, as many as its container holds beside its rows and text; the rest in messages of their own. */
function withFiles(pages: V2Page[], files: AttachmentPayload[]): V2Page[] {
  const last = pages[pages.length - 1];
  const here = Math.max(0, CONTAINER_CHILDREN_MAX - last.rows.length - 1);
  const out = [...pages.slice(0, -1), { ...last, files: files.slice(0, here) }];
  for (let i = here; i < files.length; i += CONTAINER_CHILDREN_MAX - 1) {
    out.push({ groups: [[ANSWER_NOTES.moreFiles]], files: files.slice(i, i + CONTAINER_CHILDREN_MAX - 1), rows: [] });
  }
  return out;
}

/**
 * An answer as V2 messages: the text (under `heading`, a scheduled run's
 * line), the commands, the notes and the proposal, each a group; proposed
 * facts follow as today's message.
 */
export function renderAnswerV2(res: MessageResponse, heading?: string | null): Outgoing[] {
  const parts = answerParts(res);
  const groups = [[heading ?? "", parts.text], parts.runs, [...parts.notes, ...(parts.proposal ? [parts.proposal.content] : [])]];
  const pages: V2Page[] = pagesOfGroups(groups).map((g) => ({ groups: g, files: [], rows: [] }));
  pages[pages.length - 1].rows = parts.proposal?.components ?? [];
  const out = withFiles(pages, parts.files).map(v2Message);
  return parts.facts ? [...out, parts.facts] : out;
}

/** A classic message in a V2 one (a reply that ends a live V2 answer: an error, a refusal): its text and rows in a container. */
export function asV2(msg: Outgoing): Outgoing {
  if (msg.v2) return msg;
  return v2Message({ groups: [[msg.content]], files: msg.files, rows: (msg.components ?? []) as RowJson[] });
}

/**
 * A reply as `style` shows it: in V2 an answer is laid out here, and with
 * `inV2` (it ends a live V2 answer) any other reply's messages become V2 too;
 * otherwise the classic messages.
 */
export function renderStyled(reply: Reply, style: ComponentsStyle, inV2 = false): Outgoing[] {
  if (style !== "v2") return renderReply(reply);
  if (reply.kind === "answer") return renderAnswerV2(reply.answer);
  const out = renderReply(reply);
  return inV2 ? out.map(asV2) : out;
}
