import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.ts";
import type { Vars } from "../vars.ts";
import { createLanguageModel } from "./language-model.ts";
import { OpenAIChatModel } from "./openai-stream.ts";
import { streamModelText } from "./stream.ts";

const fakeModel = (env as unknown as { FAKE_MODEL_URL: string }).FAKE_MODEL_URL;
const model = () => createLanguageModel(loadConfig(env as unknown as Vars), env as unknown as Vars);
let n = 0;
const unique = (what: string) => `${what}-${Date.now().toString(36)}-${n++}`;

function ask(text: string, signal = new AbortController().signal, timeoutMs = 5_000) {
  return streamModelText(model(), [{ role: "user", content: text }], { signal, stream: true, timeoutMs });
}

async function collect(pieces: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const p of pieces) out.push(p);
  return out;
}

async function callsWith(marker: string): Promise<number> {
  const { calls } = (await (await fetch(`${fakeModel}/_calls`)).json()) as { calls: { messages: { content: string }[] }[] };
  return calls.filter((c) => c.messages.at(-1)?.content.includes(marker)).length;
}

describe("streaming model text from an OpenAI-compatible endpoint", () => {
  it("hands out the first piece while the model still holds the rest", async () => {
    const hold = unique("hold");
    const pieces = ask(`HOLD:${hold} CHUNK:4 SAY: streaming answer`);
    // The fake sends nothing past the first piece until released: a first piece here proves it streamed.
    const first = await pieces.next();
    expect(first.value).toBe("stre");
    await fetch(`${fakeModel}/_release/${hold}`, { method: "POST" });
    const rest = await collect(pieces);
    expect(["stre", ...rest].join("")).toBe("streaming answer");
    expect(rest.length).toBeGreaterThan(1);
  });

  it("retries a 429 after its Retry-After and returns the answer", async () => {
    const name = unique("rate");
    expect((await collect(ask(`RATE:${name} SAY: after the limit`))).join("")).toBe("after the limit");
    expect(await callsWith(name)).toBe(2);
  });

  it("aborts the model request when the turn is stopped, and throws the stop's reason", async () => {
    const name = unique("hang");
    const stop = new AbortController();
    const pieces = ask(`HANG:${name} CHUNK:3 SAY: never finishes`, stop.signal);
    expect((await pieces.next()).value).toBe("nev");
    const reason = new Error("stopped by test");
    stop.abort(reason);
    await expect(collect(pieces)).rejects.toBe(reason);
    const seen = (await (await fetch(`${fakeModel}/_aborted/${name}`)).json()) as { aborted: boolean };
    expect(seen.aborted).toBe(true);
  });

  it("a request that cannot reach the endpoint names the endpoint's host, never its key", async () => {
    // Port 9 (discard): nothing listens on it here.
    const unreachable = new OpenAIChatModel("http://user:url-secret@127.0.0.1:9/v1", "m", "sk-never-shown");
    const failed = streamModelText(unreachable, [{ role: "user", content: "hello" }], { signal: new AbortController().signal, stream: true, timeoutMs: 5_000 });
    const err = await collect(failed).then(() => null, (e: unknown) => e as Error & { code?: string });
    expect(err?.code).toBe("model_error");
    expect(err?.message).toMatch(/^the model request to 127\.0\.0\.1:9 failed: /);
    expect(err?.message).not.toMatch(/sk-never-shown|url-secret/);
  });

  it("turns a deadline, a refused request and an empty answer into model errors", async () => {
    const name = unique("late");
    await expect(collect(ask(`HANG:${name} SAY: too slow`, undefined, 300))).rejects.toMatchObject({ code: "model_timeout", status: 504 });
    expect(((await (await fetch(`${fakeModel}/_aborted/${name}`)).json()) as { aborted: boolean }).aborted).toBe(true);
    await expect(collect(ask("FAIL:400"))).rejects.toMatchObject({ code: "model_error", message: expect.stringMatching(/HTTP 400/) });
    await expect(collect(ask("EMPTY"))).rejects.toMatchObject({ code: "model_error", message: expect.stringMatching(/empty/) });
    await expect(collect(ask("GARBAGE"))).rejects.toMatchObject({ code: "model_error", message: "the model endpoint answered with something that is not JSON" });
  });

  it("takes one JSON completion from a server that ignores stream: true", async () => {
    expect((await collect(ask("NOSTREAM SAY: all at once"))).join("")).toBe("all at once");
  });
});
