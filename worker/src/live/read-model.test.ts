import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.ts";
import type { Vars } from "../vars.ts";
import { createLanguageModel } from "../model/language-model.ts";
import { streamModelText } from "../model/stream.ts";
import { readModelStream } from "./read-model.ts";
import { TurnStopped } from "./stop.ts";

const fakeModel = (env as unknown as { FAKE_MODEL_URL: string }).FAKE_MODEL_URL;
let n = 0;
const unique = (what: string) => `${what}-${Date.now().toString(36)}-${n++}`;

function read(script: string, onText: (delta: string) => void, stop = new AbortController()) {
  const e = env as unknown as Vars;
  const pieces = streamModelText(createLanguageModel(loadConfig(e), e), [{ role: "user", content: script }], { signal: stop.signal, stream: true, timeoutMs: 10_000 });
  return readModelStream(pieces, 3, onText, stop.signal);
}

describe("reading the model's answer as it streams", () => {
  it("lets text out before the model finishes, and no part of a tag split across chunks", async () => {
    const hold = unique("hold");
    const answer = "Listing the files now. <run>ls -la</run>\nThen counting them: <run>ls | wc -l</run>\nDone when both ran.";
    const deltas: string[] = [];
    let firstText!: () => void;
    const sawText = new Promise<void>((resolve) => (firstText = resolve));
    const reading = read(`HOLD:${hold} CHUNK:3 SAY: ${answer}`, (d) => {
      deltas.push(d);
      firstText();
    });
    // The fake holds everything after its first piece until released: text seen here came before the end.
    await sawText;
    await fetch(`${fakeModel}/_release/${hold}`, { method: "POST" });
    const { reply, modelText, stopped } = await reading;
    expect(modelText).toBe(answer);
    expect(stopped).toBe(false);
    expect(reply.commands).toEqual(["ls -la", "ls | wc -l"]);
    expect(deltas.join("")).toBe(reply.explanation);
    for (const d of deltas) expect(d).not.toMatch(/<|>|\/?run\b/);
    expect(deltas.length).toBeGreaterThan(3);
  });

  it("keeps what was written when the turn is stopped, aborts the model request and finds no command to run", async () => {
    const name = unique("hang");
    const stop = new AbortController();
    const reading = read(`HANG:${name} CHUNK:12 SAY: Partial answer <run>rm -rf build</run> never sent`, () => stop.abort(new TurnStopped("U1")), stop);
    const { reply, stopped, modelText } = await reading;
    expect(stopped).toBe(true);
    expect(modelText).toBe("Partial answ");
    expect(reply.explanation).toBe("Partial answ");
    expect(reply.commands).toEqual([]);
    expect(((await (await fetch(`${fakeModel}/_aborted/${name}`)).json()) as { aborted: boolean }).aborted).toBe(true);
  });
});
