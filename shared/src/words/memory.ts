import { duetCommand, type Naming } from "../format/control.ts";
import type { MemoryResponse, PinnedFact } from "../wire/memory-schemas.ts";
import type { Spelling } from "./usage.ts";

/** The room's pinned facts in words every front end shares; each passes how it names a person and a command. */

/** Who a room's summary calls are counted under in its usage: the room's own model writing it, no person asking. */
export const SUMMARY_USAGE_NAME = "room summary";

const day = (at: number) => new Date(at).toISOString().slice(0, 10);
/** A fact as people typed it, shown as code in the surface's markup: it can neither mention nor format, and keeps every character. */
const quotedIn = (name: Naming) => (f: PinnedFact) => name.command(f.text);

/** `/duet memory`: the facts, numbered, with who pinned each and when, and how to add or drop one. */
export function describeMemory(memory: MemoryResponse, name: Naming): string {
  const quoted = quotedIn(name);
  const howTo = `${duetCommand(name, "remember FACT")} pins one; ${duetCommand(name, "forget N")} unpins number N.`;
  if (!memory.facts.length) return `Nothing is pinned here yet. Duet keeps pinned facts in mind in every answer here (up to ${memory.max}): ${howTo}`;
  const who = (f: PinnedFact) => (f.pinnedByName ? (name.label?.(f.pinnedByName) ?? f.pinnedByName) : name.person(f.pinnedBy));
  return [
    `Facts pinned here (${memory.facts.length} of ${memory.max}); Duet keeps them in mind in every answer:`,
    ...memory.facts.map((f) => `${f.n}. ${quoted(f)} pinned by ${who(f)} on ${day(f.at)}`),
    howTo,
  ].join("\n");
}

/** A fact pinned just now, or found already pinned. */
export function describePinned(pinned: PinnedFact, already: boolean, by: string, name: Naming): string {
  const quoted = quotedIn(name);
  if (already) return `That is already pinned here, as number ${pinned.n}: ${quoted(pinned)}.`;
  return `${name.person(by)} pinned fact ${pinned.n}: ${quoted(pinned)}. Duet keeps it in mind in every answer here.`;
}

/** A fact unpinned just now. */
export function describeForgotten(forgotten: PinnedFact, by: string, name: Naming): string {
  return `${name.person(by)} unpinned fact ${forgotten.n}: ${quotedIn(name)(forgotten)}.`;
}

/** What `remember` needs when typed alone. */
export function rememberNeedsFact(spell: Spelling): string {
  return `\`${spell("remember")}\` needs the fact to keep, e.g. \`${spell("remember", "staging runs on port 8443")}\`.`;
}

/** What `forget` needs: the fact's number as the memory command lists it; `given` is already quoted safe for a code span. */
export function forgetNeedsNumber(spell: Spelling, given: string): string {
  return given
    ? `\`${given}\` is not a fact's number; \`${spell("memory")}\` lists them, e.g. \`${spell("forget", "2")}\`.`
    : `\`${spell("forget")}\` needs the fact's number, as \`${spell("memory")}\` lists them, e.g. \`${spell("forget", "2")}\`.`;
}

/** A memory reply as text: the fact pinned or unpinned, or else the whole list. */
export function memoryText(reply: { memory: MemoryResponse; pinned?: { fact: PinnedFact; already: boolean; user: string }; forgotten?: { fact: PinnedFact; user: string } }, name: Naming): string {
  if (reply.pinned) return describePinned(reply.pinned.fact, reply.pinned.already, reply.pinned.user, name);
  if (reply.forgotten) return describeForgotten(reply.forgotten.fact, reply.forgotten.user, name);
  return describeMemory(reply.memory, name);
}

/** The buttons a reset of a room that remembers shows, and what each does: its memory is its pinned facts and its summary. */
export const RESET_CHOICES = { keep: "Reset, keep memory", wipe: "Reset everything", cancel: "Cancel" } as const;

/**
 * A reset asked in a room that remembers: the question the buttons answer,
 * saying what goes either way and what each choice does with the pinned facts
 * and the rolling summary of earlier conversation the room keeps.
 */
export function resetQuestion(person: string, memory: { facts: number; summary: boolean }): string {
  const kept = [memory.facts === 1 ? "1 pinned fact" : memory.facts ? `${memory.facts} pinned facts` : "", memory.summary ? "a summary of its earlier conversation" : ""].filter(Boolean);
  const it = memory.facts + (memory.summary ? 1 : 0) === 1 ? "it" : "them";
  return (
    `${person} asked to reset Duet here: either way the conversation history is cleared and the sandbox is removed. ` +
    `This room also keeps ${kept.join(" and ")}: "${RESET_CHOICES.keep}" keeps ${it}, "${RESET_CHOICES.wipe}" wipes ${it} too. Anyone who may reset Duet here may choose.`
  );
}

/** What became of the room's memory (its pinned facts and its summary), after the reset's own line. */
export function resetFactsNote(facts: "kept" | "wiped"): string {
  return facts === "kept" ? "The pinned facts and the summary of earlier conversation are kept." : "The pinned facts and the summary of earlier conversation are wiped too.";
}

/** Cancel clicked on a reset's question. */
export function resetCancelled(person: string): string {
  return `${person} cancelled the reset; nothing was changed.`;
}

/** Above the facts the model proposed: nothing is pinned until a person clicks. */
export function proposedFactsHint(n: number): string {
  return n === 1 ? "Duet proposes pinning this fact (nothing is pinned until someone clicks Pin):" : `Duet proposes pinning these ${n} facts (nothing is pinned until someone clicks Pin):`;
}

/** A proposed fact after a click, in place of its buttons; `fact` is already shown as code in the surface's markup. */
export function factDecidedLine(r: { decision: "pin" | "dismiss"; n?: number; already?: boolean }, person: string, fact: string): string {
  if (r.decision === "dismiss") return `${person} dismissed ${fact}; nothing was pinned.`;
  if (r.already) return `${fact} was already pinned here, as number ${r.n}.`;
  return `${person} pinned ${fact} as fact ${r.n}. Duet keeps it in mind in every answer here.`;
}

/** A memory button that is not one Duet made, or pressed outside a server: nothing changes. */
export const MEMORY_BUTTON_UNKNOWN = "That button is not one Duet made here; nothing was changed.";
