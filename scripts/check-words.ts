import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/**
 * Finds sentences a person would read that a bot's source spells itself, where
 * they belong in shared/src/words. A "sentence" is a string literal (or a
 * template's fixed text) with four or more words; what only an operator reads
 * is not one: log lines, thrown errors, and the bots' start-up and config
 * checks, which speak to whoever runs the bot.
 */

/** Four words and more make a sentence; fewer are labels, names and markup. */
const MIN_WORDS = 4;

/** Calls whose strings go to a log or an exception, never to a chat. */
const OPERATOR_CALLEE = /(^|\.)(log|logger|warn|info|error|debug|trace|fatal|fail|exit)$|^(Error|TypeError|RangeError|DuetError|ConfigError|console\..*)$/;

/** Files that speak only to whoever runs the bot (start-up, settings, command registration, the health endpoint), never to a chat. */
const OPERATOR_FILES = /(^|\/)(main|config|oauth-config|register-main|shards|health)\.ts$/;

/**
 * Sentences in the bots that no chat shows, each with where it goes: matched
 * by file and the sentence's start.
 */
const NOT_FOR_CHAT: { file: string; starts: string }[] = [
  // The body of a 502 to Slack's servers when bolt is down; Slack shows people its own error.
  { file: "bots/slack/src/ack-front/proxy.ts", starts: "The bot is not answering" },
  // Why a request was refused, for the log line its caller writes.
  { file: "bots/slack/src/ack-front/server.ts", starts: "the x-slack-signature" },
  // Part of the start-up log line.
  { file: "bots/slack/src/app.ts", starts: "for every workspace that installs it" },
  // Why a room is cleaned, for the log line.
  { file: "bots/discord/src/cleanup.ts", starts: "removed from the server" },
  // Which click a refused click's log line names.
  { file: "bots/slack/src/clicks/memory-click.ts", starts: "a memory button click" },
];

export interface Sentence {
  file: string;
  line: number;
  text: string;
}

/** Plain words only: `code`, _markup_, paths and options (`prompt:`) are how a command is typed, not prose. */
function wordsIn(text: string): number {
  return text.split(/\s+/).filter((w) => /^[(]?[A-Za-z][a-z']*[,.;:!?…)]*$/.test(w)).length;
}

function literalText(node: ts.Node): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join("${}");
  return null;
}

/** True when the literal is, directly or through a `+`/template, an argument of a log call or an exception. */
function forOperator(node: ts.Node): boolean {
  for (let p: ts.Node | undefined = node.parent; p; p = p.parent) {
    if (ts.isCallExpression(p) || ts.isNewExpression(p)) {
      const callee = p.expression.getText();
      if (OPERATOR_CALLEE.test(callee)) return true;
    }
    if (ts.isThrowStatement(p)) return true;
    if (ts.isBlock(p) || ts.isSourceFile(p)) return false;
  }
  return false;
}

function isNotProse(node: ts.Node): boolean {
  const p = node.parent;
  // import paths, property names, type positions
  return ts.isImportDeclaration(p) || ts.isExportDeclaration(p) || ts.isLiteralTypeNode(p) || ts.isPropertyAssignment(p) && p.name === node;
}

export function sentencesIn(file: string, source: string): Sentence[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Sentence[] = [];
  const visit = (node: ts.Node) => {
    const text = literalText(node);
    if (text !== null && wordsIn(text) >= MIN_WORDS && !isNotProse(node) && !forOperator(node)) {
      found.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1, text });
    }
    if (!ts.isTemplateExpression(node)) ts.forEachChild(node, visit);
    else node.templateSpans.forEach((s) => ts.forEachChild(s.expression, visit));
  };
  visit(sf);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : sourceFiles(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Every sentence in the bots' sources outside the operator's files, as `file:line text`. */
export function botSentences(root: string): Sentence[] {
  return ["bots/slack/src", "bots/discord/src"]
    .flatMap((d) => sourceFiles(join(root, d)))
    .map((f) => relative(root, f))
    .filter((f) => !OPERATOR_FILES.test(f))
    .flatMap((f) => sentencesIn(f, readFileSync(join(root, f), "utf8")))
    .filter((s) => !NOT_FOR_CHAT.some((n) => n.file === s.file && s.text.startsWith(n.starts)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = botSentences(process.cwd());
  for (const s of found) console.log(`${s.file}:${s.line} ${JSON.stringify(s.text)}`);
  process.exitCode = found.length ? 1 : 0;
}
