import { duetCommand, type Naming } from "../format/control.ts";
import type { MemoryResponse, PinnedFact } from "../memory-schemas.ts";
import type { Spelling } from "./usage.ts";

/** The room's pinned facts in words every front end shares; each passes how it names a person and a command. */

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
