import { listen, readBody, sendJson, sleep, type Listening } from "./http.ts";

/**
 * A fake OpenAI-compatible model on 127.0.0.1. Its behaviour is scripted by the
 * last user message, so concurrent tests never share a script:
 *
 *   SAY: <text>        answer <text> verbatim (may contain <run> tags)
 *   SAY64: <base64>    answer the decoded text: a model writing what the user's text never held (a secret)
 *   SLOW:<ms> <rest>   wait <ms> before handling <rest>
 *   FAIL:<status>      answer that HTTP status with an error body
 *   GARBAGE            answer a body that is not JSON
 *   EMPTY              answer an empty completion
 *   anything else      answer "Echo: <text>"
 *
 * `answer(match, text)` scripts a reply for questions a test cannot prefix with
 * SAY: (everyday requests, as `pnpm eval` asks them).
 *
 * The default delay for every call can be set with `setDelay` (benchmarks).
 */
export interface ModelCall {
  model: string;
  messages: { role: string; content: string }[];
  stream: boolean;
  /** Generation settings as sent (absent when the request had none). */
  max_tokens?: number;
  temperature?: number;
}

export interface FakeModel extends Listening {
  calls: ModelCall[];
  baseUrl: string;
  setDelay(ms: number): void;
  /** Answers `text` whenever the last user message contains `match`. */
  answer(match: string, text: string): void;
  reset(): void;
}

export async function startFakeModel(port = 0): Promise<FakeModel> {
  const calls: ModelCall[] = [];
  const answers: [match: string, text: string][] = [];
  let delayMs = 0;
  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (req.method === "GET" && url.pathname === "/_calls") return sendJson(res, 200, { count: calls.length, calls });
    if (req.method === "POST" && url.pathname === "/_reset") {
      calls.length = 0;
      return sendJson(res, 200, { ok: true });
    }
    if (req.method !== "POST" || !url.pathname.endsWith("/chat/completions")) {
      return sendJson(res, 404, { error: { message: "not found" } });
    }
    const body = JSON.parse(await readBody(req)) as ModelCall;
    calls.push({ model: body.model, messages: body.messages, stream: Boolean(body.stream), max_tokens: body.max_tokens, temperature: body.temperature });
    if (delayMs) await sleep(delayMs);
    const last = [...body.messages].reverse().find((m) => m.role === "user")?.content ?? "";
    let script = last.trim();
    const slow = /^SLOW:(\d+)\s*/.exec(script);
    if (slow) {
      await sleep(Number(slow[1]));
      script = script.slice(slow[0].length);
    }
    const fail = /^FAIL:(\d{3})/.exec(script);
    if (fail) return sendJson(res, Number(fail[1]), { error: { message: `scripted failure ${fail[1]}` } });
    if (script.startsWith("GARBAGE")) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end("<html>this is not json");
    }
    const scripted = answers.find(([match]) => last.includes(match));
    const content = scripted
      ? scripted[1]
      : script.startsWith("EMPTY")
        ? ""
        : script.startsWith("SAY64:")
          ? Buffer.from(script.slice(6).trim(), "base64").toString("utf8")
          : script.startsWith("SAY:")
            ? script.slice(4).trim()
            : `Echo: ${script}`;
    if (body.stream) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const piece of content.match(/[\s\S]{1,16}/g) ?? []) {
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
      }
      res.write("data: [DONE]\n\n");
      return res.end();
    }
    sendJson(res, 200, {
      id: `chatcmpl-${calls.length}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    });
  }, port);
  return {
    ...listening,
    calls,
    baseUrl: `${listening.url}/v1`,
    setDelay: (ms) => {
      delayMs = ms;
    },
    answer: (match, text) => {
      answers.push([match, text]);
    },
    reset: () => {
      calls.length = 0;
    },
  };
}
