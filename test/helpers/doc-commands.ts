/** Each command line of a markdown page's ```sh blocks, continuation lines joined, comments dropped. */
export function shellCommands(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.flatMap((b) => b.replace(/\\\n\s*/g, " ").split("\n")).map((l) => l.replace(/\s+#.*$/, "").trim()).filter(Boolean);
}

/** A documented line as a shell splits it: words, with '…' kept whole. */
export function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}
