import type { ServerResponse } from "node:http";
import { listen, readBody, sendJson, sleep, type Listening } from "./http.ts";

/**
 * A fake OpenAI-compatible model on 127.0.0.1. Its behaviour is scripted by the
 * last user message (after the `[from "name"]` line naming its speaker), so
 * concurrent tests never share a script:
 *
 *   SAY: <text>        answer <text> verbatim (may contain <run> tags)
 *   SAY64: <base64>    answer the decoded text: a model writing what the user's text never held (a secret)
 *   SLOW:<ms> <rest>   wait <ms> before handling <rest>
 *   FAIL:<status>      answer that HTTP status with an error body
 *   GARBAGE            answer a body that is not JSON
 *   EMPTY              answer an empty completion
 *   NOSTREAM <rest>    answer one JSON completion even when asked to stream (servers that ignore `stream`)
 *   NOUSAGE <rest>     report no token usage (a provider that gives none)
 *   anything else      answer "Echo: <text>"
 *
 * A room's summary request (its system message opens with "You keep the running
 * summary") is answered as a summary: "SUMMARY of <n> turns: " and every "noted: …"
 * the request holds (the summary so far included), one per line, so a test finds a
 * planted fact in it. Words in the summarised turns script it:
 *
 *   SUMFAIL:<name>     a summary request holding it answers 500, until POST /_release/<name>
 *   SUMHANG:<name>     the first summary request holding it never finishes (a timeout)
 *   SUMHOLD:<name>     a summary request holding it waits until POST /_release/<name>
 *
 * `answer(match, text)` scripts a reply for questions a test cannot prefix with
 * SAY: (everyday requests, as `pnpm eval` asks them).
 *
 * Prefixes that shape the answer, in this order:
 *
 *   RATE:<name> <rest>   the first request naming <name> answers 429 with Retry-After: 1 (seconds);
 *                        the retry gets <rest>
 *   CHUNK:<n> <rest>     stream pieces of <n> characters (default 16), so tags split across chunks
 *   DRIP:<ms> <rest>     wait <ms> between pieces
 *   HOLD:<name> <rest>   send the first piece, then hold the rest until POST /_release/<name>
 *                        (a whole answer: hold all of it)
 *   STEP:<name> <rest>   send the first piece, then each next piece <i> (1, 2, …) only once
 *                        POST /_release/<name>.<i> came, and the end once <name>.<count> came:
 *                        a test lets the model write one piece at a time
 *   HANG:<name> <rest>   send the first piece, then never finish: the request waits until the
 *                        client aborts it, which GET /_aborted/<name> reports (it waits for it)
 *                        (a whole answer: send nothing)
 * CHUNK and DRIP shape a streamed answer (`stream: true`) only.
 *
 * Token usage is reported as OpenAI does (`usage` on a whole answer; a last
 * event with `usage` and no choices when the request asked for
 * `stream_options.include_usage`): a prompt token per 4 characters of the
 * messages, an answer token per 4 characters of the answer. Each call records
 * what it reported (`usage`), so tests compare Duet's figures with the fake's.
 *
 * The default delay for every call can be set with `setDelay` (benchmarks).
 * `firstPieces` records, per streamed answer, when its first piece was written
 * (`performance.now()` in this process), so a benchmark in the same process can
 * time the model's first token against what a fake platform receives.
 */
export interface ModelCall {
  model: string;
  messages: { role: string; content: string }[];
  stream: boolean;
  /** Generation settings as sent (absent when the request had none). */
  max_tokens?: number;
  temperature?: number;
  /** The token counts this call reported, once it answered; absent when it reported none. */
  usage?: FakeUsage;
}

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface FakeModel extends Listening {
  calls: ModelCall[];
  /** Streamed answers' first pieces: the last user message and when the piece was written. */
  firstPieces: { last: string; at: number }[];
  baseUrl: string;
  setDelay(ms: number): void;
  /** Answers `text` whenever the last user message contains `match`. */
  answer(match: string, text: string): void;
  reset(): void;
}

export async function startFakeModel(port = 0): Promise<FakeModel> {
  const calls: ModelCall[] = [];
  const firstPieces: { last: string; at: number }[] = [];
  const answers: [match: string, text: string][] = [];
  let delayMs = 0;
  const rateLimited = new Set<string>();
  /** SUMHANG names already played: each scripts only the first summary request holding it. */
  const summaryScripts = new Set<string>();
  const holds = new Barriers();
  const aborts = new Barriers();
  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (req.method === "GET" && url.pathname === "/_calls") return sendJson(res, 200, { count: calls.length, calls });
    const release = /^\/_release\/([^/]+)$/.exec(url.pathname);
    if (req.method === "POST" && release) {
      holds.open(decodeURIComponent(release[1]));
      return sendJson(res, 200, { released: true });
    }
    const aborted = /^\/_aborted\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && aborted) {
      const seen = await aborts.wait(decodeURIComponent(aborted[1]), Number(url.searchParams.get("waitMs") ?? 10_000));
      return sendJson(res, 200, { aborted: seen });
    }
    if (req.method === "POST" && url.pathname === "/_reset") {
      calls.length = 0;
      return sendJson(res, 200, { ok: true });
    }
    if (req.method !== "POST" || !url.pathname.endsWith("/chat/completions")) {
      return sendJson(res, 404, { error: { message: "not found" } });
    }
    const body = JSON.parse(await readBody(req)) as ModelCall & { stream_options?: { include_usage?: boolean } };
    const call: ModelCall = { model: body.model, messages: body.messages, stream: Boolean(body.stream), max_tokens: body.max_tokens, temperature: body.temperature };
    calls.push(call);
    if (delayMs) await sleep(delayMs);
    if (isSummaryCall(body)) {
      return answerSummary(res, body.messages, summaryScripts, { holds, aborts }, (content) => (call.usage = usageOf(body.messages, content)));
    }
    const last = [...body.messages].reverse().find((m) => m.role === "user")?.content ?? "";
    // The line naming the speaker comes before the script: the script is the person's words.
    let script = last.replace(/^\[from [^\n]*\]\n/, "").trim();
    const slow = /^SLOW:(\d+)\s*/.exec(script);
    if (slow) {
      await sleep(Number(slow[1]));
      script = script.slice(slow[0].length);
    }
    const rate = /^RATE:(\S+)\s*/.exec(script);
    if (rate) {
      script = script.slice(rate[0].length);
      if (!rateLimited.has(rate[1])) {
        rateLimited.add(rate[1]);
        return sendJson(res, 429, { error: { message: "scripted rate limit" } }, { "retry-after": "1" });
      }
    }
    const fail = /^FAIL:(\d{3})/.exec(script);
    if (fail) return sendJson(res, Number(fail[1]), { error: { message: `scripted failure ${fail[1]}` } });
    if (script.startsWith("GARBAGE")) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end("<html>this is not json");
    }
    const scripted = answers.find(([match]) => last.includes(match))?.[1];
    const noStream = /^NOSTREAM\s*/.exec(script);
    if (noStream) script = script.slice(noStream[0].length);
    const noUsage = /^NOUSAGE\s*/.exec(script);
    if (noUsage) script = script.slice(noUsage[0].length);
    const shape = shapeOf(script);
    // The counts go out with the answer and are recorded as sent.
    const usageFor = (content: string) => (noUsage ? undefined : (call.usage = usageOf(body.messages, content)));
    if (body.stream && !noStream) {
      const wantsUsage = body.stream_options?.include_usage === true;
      return streamAnswer(res, shape, scripted, { holds, aborts }, (at) => firstPieces.push({ last, at }), wantsUsage ? usageFor : () => undefined);
    }
    if (shape.hold) await holds.wait(shape.hold, 60_000);
    if (shape.hang) return abortedBy(res, shape.hang, aborts);
    const content = scripted ?? contentOf(shape.rest);
    sendJson(res, 200, {
      id: `chatcmpl-${calls.length}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      ...(usageFor(content) ? { usage: call.usage } : {}),
    });
  }, port);
  return {
    ...listening,
    calls,
    firstPieces,
    close: async () => {
      holds.openAll();
      aborts.openAll();
      await listening.close();
    },
    baseUrl: `${listening.url}/v1`,
    setDelay: (ms) => {
      delayMs = ms;
    },
    answer: (match, text) => {
      answers.push([match, text]);
    },
    reset: () => {
      calls.length = 0;
      firstPieces.length = 0;
    },
  };
}

/** Token counts as a tokenizer of about 4 characters a token would give. */
function usageOf(messages: { content: string }[], answer: string): FakeUsage {
  const prompt = Math.ceil(messages.reduce((n, m) => n + m.content.length, 0) / 4);
  const completion = Math.ceil(answer.length / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function contentOf(script: string): string {
  if (script.startsWith("EMPTY")) return "";
  if (script.startsWith("SAY64:")) return Buffer.from(script.slice(6).trim(), "base64").toString("utf8");
  return script.startsWith("SAY:") ? script.slice(4).trim() : `Echo: ${script}`;
}

/** The CHUNK/DRIP/HOLD/HANG/STEP prefixes of a script, and the script after them. */
interface Shape {
  chunk: number;
  dripMs: number;
  hold: string | null;
  hang: string | null;
  step: string | null;
  rest: string;
}

function shapeOf(script: string): Shape {
  const shape: Shape = { chunk: 16, dripMs: 0, hold: null, hang: null, step: null, rest: script };
  for (let m; (m = /^(CHUNK|DRIP|HOLD|HANG|STEP):(\S+)\s*/.exec(shape.rest)); shape.rest = shape.rest.slice(m[0].length)) {
    if (m[1] === "CHUNK") shape.chunk = Number(m[2]);
    else if (m[1] === "DRIP") shape.dripMs = Number(m[2]);
    else if (m[1] === "HOLD") shape.hold = m[2];
    else if (m[1] === "STEP") shape.step = m[2];
    else shape.hang = m[2];
  }
  return shape;
}

/** How a room's summary request begins (the Worker's SUMMARY_SYSTEM_PROMPT). */
const SUMMARY_SYSTEM_OPENING = "You keep the running summary";

/** Whether a call was the room's own summary request rather than a person's turn. */
export const isSummaryCall = (call: Pick<ModelCall, "messages">): boolean => call.messages[0]?.role === "system" && call.messages[0].content.startsWith(SUMMARY_SYSTEM_OPENING);

/** A summary request's answer: scripted by SUMFAIL/SUMHANG/SUMHOLD, else every planted "noted: …" it holds. */
async function answerSummary(
  res: ServerResponse,
  messages: { role: string; content: string }[],
  played: Set<string>,
  { holds, aborts }: { holds: Barriers; aborts: Barriers },
  usageFor: (content: string) => FakeUsage,
): Promise<void> {
  const text = messages.slice(1).map((m) => m.content).join("\n");
  const once = (prefix: string) => {
    for (const m of text.matchAll(new RegExp(`${prefix}:([\\w-]+)`, "g"))) {
      if (!played.has(`${prefix}:${m[1]}`)) {
        played.add(`${prefix}:${m[1]}`);
        return m[1];
      }
    }
    return null;
  };
  if ([...text.matchAll(/SUMFAIL:([\w-]+)/g)].some((m) => !holds.isOpen(m[1]))) return sendJson(res, 500, { error: { message: "scripted summary failure" } });
  const hang = once("SUMHANG");
  if (hang) return abortedBy(res, hang, aborts);
  for (const m of text.matchAll(/SUMHOLD:([\w-]+)/g)) await holds.wait(m[1], 60_000);
  const noted = [...new Set([...text.matchAll(/noted: ([^\n;]+)/g)].map((m) => m[1].trim()))];
  const turns = (messages.at(-2)?.content.match(/ asked: /g) ?? []).length;
  const content = `SUMMARY of ${turns} turns: ${noted.length ? noted.map((n) => `noted: ${n}`).join(";\n") : "nothing of note"}`;
  sendJson(res, 200, {
    id: "chatcmpl-summary",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: "fake",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: usageFor(content),
  });
}

/** Resolves when the client hangs up; a hang-up before the answer ended opens the `name` barrier of `aborts`. */
function abortedBy(res: ServerResponse, name: string, aborts: Barriers): Promise<void> {
  return new Promise<void>((resolve) =>
    res.once("close", () => {
      if (!res.writableFinished) aborts.open(name);
      resolve();
    }),
  );
}

/** A streamed completion in OpenAI's SSE shape, shaped by the CHUNK/DRIP/HOLD/HANG/STEP prefixes. */
async function streamAnswer(
  res: ServerResponse,
  { chunk, dripMs, hold, hang, step, rest }: Shape,
  scripted: string | undefined,
  b: { holds: Barriers; aborts: Barriers },
  onFirstPiece: (at: number) => void,
  usageFor: (content: string) => FakeUsage | undefined,
): Promise<void> {
  const gone = hang ? abortedBy(res, hang, b.aborts) : new Promise<void>((resolve) => res.once("close", () => resolve()));
  const content = scripted ?? contentOf(rest);
  const pieces = content.match(new RegExp(`[\\s\\S]{1,${chunk}}`, "g")) ?? [];
  res.writeHead(200, { "content-type": "text/event-stream" });
  const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  for (const [i, piece] of pieces.entries()) {
    if (i > 0 && dripMs) await sleep(dripMs);
    if (i === 1 && hold) await b.holds.wait(hold, 60_000);
    if (i > 0 && step) await b.holds.wait(`${step}.${i}`, 60_000);
    if (i === 1 && hang) return gone;
    if (res.destroyed) return;
    send({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
    if (i === 0) onFirstPiece(performance.now());
  }
  if (hang) return gone;
  if (step) await b.holds.wait(`${step}.${pieces.length}`, 60_000);
  if (res.destroyed) return;
  send({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
  // OpenAI's last event when asked for usage: no choices, only the counts.
  const usage = usageFor(content);
  if (usage) send({ choices: [], usage });
  res.end("data: [DONE]\n\n");
}

/** Named one-shot gates: `wait` resolves true once `open(name)` was called (before or after), false on timeout. */
class Barriers {
  private readonly opened = new Set<string>();
  private readonly waiters = new Map<string, (() => void)[]>();

  open(name: string): void {
    this.opened.add(name);
    for (const wake of this.waiters.get(name) ?? []) wake();
    this.waiters.delete(name);
  }

  isOpen(name: string): boolean {
    return this.opened.has(name);
  }

  openAll(): void {
    for (const name of [...this.waiters.keys()]) this.open(name);
  }

  wait(name: string, timeoutMs: number): Promise<boolean> {
    if (this.opened.has(name)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      const list = this.waiters.get(name) ?? [];
      list.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
      this.waiters.set(name, list);
    });
  }
}
