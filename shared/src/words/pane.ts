/**
 * Slack's agent pane (the split view for AI apps): the prompts a new
 * conversation offers, the status shown while a turn works, and how a
 * conversation's title is made from its first ask. Slack shows at most four
 * suggested prompts; a status names the command running so a person can see
 * what Duet is doing without opening the answer.
 */

/** A suggested prompt: its title is what the pane shows, its message what is sent when picked. */
export interface SuggestedPrompt {
  title: string;
  message: string;
}

/** The longest title Duet sets on a conversation; the first ask is cut to it on a word. */
const TITLE_MAX_CHARS = 60;
/** The longest command a status names; a long one is cut. */
const STATUS_COMMAND_MAX_CHARS = 80;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text);

export const PANE_WORDS = {
  /** Shown above the suggested prompts. */
  promptsTitle: "Try one of these",
  /** The prompts a new conversation offers when SLACK_SUGGESTED_PROMPTS is unset. */
  defaultPrompts: [
    { title: "What is this project?", message: "Look around the workspace and tell me what this project is and how it is laid out." },
    { title: "Run the tests", message: "Run the project's tests and tell me what fails and why." },
    { title: "Explain an error", message: "I will paste an error or a stack trace: explain what causes it and how to fix it." },
    { title: "What can you do?", message: "What can you do here, and what can you run?" },
  ] satisfies SuggestedPrompt[],
  /** The status while the model thinks (no command running). */
  thinking: "is thinking…",
  thinkingLoading: ["Reading your question…", "Thinking it through…"],
  /** The status while a command runs, naming it. */
  running: (command: string) => `is running ${cut(command.replace(/\s+/g, " ").trim(), STATUS_COMMAND_MAX_CHARS)}`,
  /** A conversation's title: its first ask on one line, cut on a word. */
  title(ask: string): string {
    const line = ask.replace(/\s+/g, " ").trim();
    if (line.length <= TITLE_MAX_CHARS) return line;
    const head = line.slice(0, TITLE_MAX_CHARS - 1);
    const space = head.lastIndexOf(" ");
    return `${(space > TITLE_MAX_CHARS / 2 ? head.slice(0, space) : head).trimEnd()}…`;
  },
  /** SLACK_SUGGESTED_PROMPTS problems, each one line at start-up. */
  promptsVar: {
    tooMany: (n: number, max: number) => `SLACK_SUGGESTED_PROMPTS has ${n} prompts; Slack shows at most ${max}`,
    empty: (i: number) => `SLACK_SUGGESTED_PROMPTS prompt ${i} is empty (write "Title = message", prompts separated by |)`,
    tooLong: (i: number, what: "title" | "message", max: number) => `SLACK_SUGGESTED_PROMPTS prompt ${i}'s ${what} is over ${max} characters`,
  },
} as const;
