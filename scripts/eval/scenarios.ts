/**
 * What `pnpm eval` asks a model: the everyday requests a team makes of Duet. Each
 * says whether it needs a command, what a command that does the job looks like,
 * and what real output proves it worked (read from what Duet ran, never from the
 * model's words).
 */
/** Someone in the room, as a bot would name them to the Worker. */
export interface Person {
  id: string;
  name: string;
}

/** A line of the conversation before the question: its text, and who said it (no one in particular when absent). */
export type SetupLine = string | { text: string; from: Person };

export interface Scenario {
  name: string;
  /** Sent first in the same room, not scored: the conversation the question follows. */
  setup?: SetupLine[];
  ask: string;
  /** Who asks; no one in particular when absent. */
  asker?: Person;
  needsCommand: boolean;
  command?: RegExp;
  output?: RegExp;
  /** What the model's own words must say (for a question answered from the conversation). */
  answer?: RegExp;
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
    name: "two people",
    setup: [{ text: "Heads up: I'm deploying the billing service at 3pm today.", from: { id: "U-ADA", name: "Ada" } }],
    ask: "Which of my teammates said they are deploying something, and what? Answer from this conversation; do not run anything.",
    asker: { id: "U-BOB", name: "Bob" },
    needsCommand: false,
    answer: /\bAda\b[\s\S]*billing|billing[\s\S]*\bAda\b/i,
  },
  {
    name: "no command needed",
    ask: "In one sentence: what does the -h flag of df do? Do not run anything.",
    needsCommand: false,
  },
];
