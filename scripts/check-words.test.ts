import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { botSentences, sentencesIn } from "./check-words.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("sentences people read live in shared/src/words", () => {
  it("no bot source spells a sentence of its own", () => {
    expect(botSentences(root).map((s) => `${s.file}:${s.line} ${s.text}`)).toEqual([]);
  });

  it("finds a sentence in strings and templates, and not in log lines, errors, syntax or imports", () => {
    const source = [
      'import { x } from "./a b c d.ts";',
      'const hi = "Hi, I am Duet, your pair programmer.";',
      "const ran = (n: number) => `Duet ran ${n} commands here`;",
      'log.info(`could not post the welcome in ${id} today`);',
      'deps.log.warn("the gateway closed the connection again");',
      'throw new Error("the token must not contain spaces");',
      'const syntax = "`/duet schedule when:`_every 2h_ `prompt:`_text_";',
      'const short = "in this thread";',
    ].join("\n");
    expect(sentencesIn("x.ts", source).map((s) => [s.line, s.text])).toEqual([
      [2, "Hi, I am Duet, your pair programmer."],
      [3, "Duet ran ${} commands here"],
    ]);
  });
});
