/**
 * What `pnpm eval` asks a model: the everyday requests a team makes of Duet. Each
 * says whether it needs a command, what a command that does the job looks like,
 * and what real output proves it worked (read from what Duet ran, never from the
 * model's words).
 */
export interface Scenario {
  name: string;
  /** Sent first in the same room, not scored: the conversation the question follows. */
  setup?: string[];
  ask: string;
  needsCommand: boolean;
  command?: RegExp;
  output?: RegExp;
}

export const SCENARIOS: Scenario[] = [
  {
    name: "list files",
    setup: ["Create three empty files named a.txt, b.txt and c.txt here."],
    ask: "What files are in the current directory?",
    needsCommand: true,
    command: /\b(ls|find|tree)\b/,
    output: /b\.txt/,
  },
  {
    name: "disk usage",
    ask: "How much disk space does the current directory use?",
    needsCommand: true,
    command: /\b(du|df)\b/,
  },
  {
    name: "create and show a file",
    ask: "Create a file named hello.txt containing the text 'hello duet', then show me its contents.",
    needsCommand: true,
    command: /hello\.txt/,
    output: /hello duet/,
  },
  {
    name: "follow-up",
    setup: ["Write the text 'ship on friday' into a file named plan.txt."],
    ask: "Show me what the file you just wrote says.",
    needsCommand: true,
    command: /plan\.txt/,
    output: /ship on friday/,
  },
  {
    name: "no command needed",
    ask: "In one sentence: what does the -h flag of df do? Do not run anything.",
    needsCommand: false,
  },
];
