import type { Stack } from "./stack.ts";

/** Checks shared by the Slack, Discord and reliability end-to-end tests. */

/** True when every ``` opened in the text is closed in the same text. */
export function fencesBalanced(text: string): boolean {
  return (text.match(/```/g) ?? []).length % 2 === 0;
}

/** Model calls whose newest user message contains `marker`. */
export function modelCallsFor(stack: Stack, marker: string): number {
  return stack.model.calls.filter((c) => {
    const last = [...c.messages].reverse().find((m) => m.role === "user");
    return last?.content.includes(marker);
  }).length;
}
