import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Rig, startRig } from "./rig.ts";

/**
 * Hostile and malformed requests straight at the Worker's API, as anyone who
 * found its URL could send them. Each gets a JSON error with a stable code and
 * a message a person can act on (never a stack trace, never a 500), and none
 * reaches the model, the sandbox or a room's history.
 */

let rig: Rig;

beforeAll(async () => {
  rig = await startRig();
});

afterAll(async () => {
  await rig?.stop();
});

const ROOM = "hostile-api-room";
const BODY_MAX_BYTES = 64 * 1024;
/** Signs of internals leaking: stack frames, source paths, runtime error names. */
const INTERNALS = /\n\s+at |node_modules|\.ts:\d+|TypeError|SyntaxError|ZodError|workerd/;

interface Attempt {
  name: string;
  method?: string;
  path?: string;
  body?: BodyInit;
  headers?: Record<string, string>;
  /** Leave out the Authorization header, or send this one. */
  auth?: string | null;
  status: number;
  code: string;
  /** A field that must be named in `details`, with words its message must contain. */
  detail?: [string, RegExp];
}

const json = (v: unknown) => JSON.stringify(v);
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

const attempts: Attempt[] = [
  { name: "body over 64 KiB", body: json({ text: "x".repeat(BODY_MAX_BYTES) }), status: 413, code: "payload_too_large" },
  {
    name: "body over 64 KiB without a Content-Length (chunked)",
    body: new ReadableStream({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode("x".repeat(8 * 1024)));
        c.close();
      },
    }),
    status: 413,
    code: "payload_too_large",
  },
  { name: "truncated JSON", body: '{"text": "hel', status: 400, code: "invalid_request", detail: ["body", /valid JSON/] },
  { name: "JSON array", body: "[]", status: 400, code: "invalid_request", detail: ["body", /JSON object/] },
  { name: "JSON string", body: '"hello"', status: 400, code: "invalid_request", detail: ["body", /JSON object/] },
  { name: "JSON null", body: "null", status: 400, code: "invalid_request", detail: ["body", /JSON object/] },
  { name: "bytes that are not UTF-8", body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), status: 400, code: "invalid_request", detail: ["body", /UTF-8/] },
  { name: "empty body", body: "", status: 400, code: "invalid_request", detail: ["body", /valid JSON/] },
  { name: "no text", body: "{}", status: 400, code: "invalid_request", detail: ["text", /string/] },
  { name: "empty text", body: json({ text: "" }), status: 400, code: "invalid_request", detail: ["text", /empty/] },
  { name: "text of zero-width and control characters only", body: json({ text: "\u200B\u200D\uFEFF\u0007\u001B\u202E" }), status: 400, code: "invalid_request", detail: ["text", /empty/] },
  { name: "text over 8,000 characters", body: json({ text: "y".repeat(8_001) }), status: 400, code: "invalid_request", detail: ["text", /at most 8000/] },
  { name: "text that is a number", body: json({ text: 42 }), status: 400, code: "invalid_request", detail: ["text", /string/] },
  { name: "text that is deeply nested arrays", body: `{"text": ${nested(20_000)}}`, status: 400, code: "invalid_request", detail: ["text", /string/] },
  { name: "__proto__ carrying the text", body: '{"__proto__": {"text": "polluted"}}', status: 400, code: "invalid_request", detail: ["text", /string/] },
  { name: "user id over 128 characters", body: json({ text: "hi", userId: "u".repeat(129) }), status: 400, code: "invalid_request", detail: ["userId", /at most 128/] },
  { name: "idempotency key over 200 characters", body: json({ text: "hi", idempotencyKey: "k".repeat(201) }), status: 400, code: "invalid_request", detail: ["idempotencyKey", /at most 200/] },
  { name: "empty idempotency key", body: json({ text: "hi", idempotencyKey: "" }), status: 400, code: "invalid_request", detail: ["idempotencyKey", /empty/] },

  { name: "room id over 200 characters", path: `/api/rooms/${"r".repeat(201)}/message`, body: json({ text: "hi" }), status: 400, code: "invalid_request", detail: ["roomId", /1-200 characters/] },
  { name: "room id with a space", path: "/api/rooms/bad%20room/message", body: json({ text: "hi" }), status: 400, code: "invalid_request", detail: ["roomId", /1-200 characters/] },
  { name: "room id with non-ASCII letters", path: "/api/rooms/r%C3%A4um/message", body: json({ text: "hi" }), status: 400, code: "invalid_request", detail: ["roomId", /1-200 characters/] },
  { name: "room id with an encoded slash", path: "/api/rooms/a%2Fb/message", body: json({ text: "hi" }), status: 400, code: "invalid_request", detail: ["roomId", /1-200 characters/] },
  { name: "room id climbing out (encoded ../)", path: "/api/rooms/..%2F..%2Fetc/message", body: json({ text: "hi" }), status: 400, code: "invalid_request", detail: ["roomId", /1-200 characters/] },
  { name: "room id with a NUL byte", path: "/api/rooms/room%00x/message", body: json({ text: "hi" }), status: 400, code: "invalid_request", detail: ["roomId", /1-200 characters/] },
  { name: "room id with a newline", path: "/api/rooms/room%0Ax/messages", method: "GET", status: 400, code: "invalid_request", detail: ["roomId", /1-200 characters/] },
  { name: "bad room id on DELETE", path: "/api/rooms/bad%20room", method: "DELETE", status: 400, code: "invalid_request", detail: ["roomId", /1-200 characters/] },
  { name: "bad room id on exec", path: "/api/rooms/%F0%9F%92%A5/sandbox/exec", body: json({ cmd: "ls" }), status: 400, code: "invalid_request", detail: ["roomId", /1-200 characters/] },
  { name: "empty room id", path: "/api/rooms//message", body: json({ text: "hi" }), status: 404, code: "not_found" },

  { name: "exec with an empty command", path: `/api/rooms/${ROOM}/sandbox/exec`, body: json({ cmd: "   " }), status: 400, code: "invalid_request", detail: ["cmd", /empty/] },
  { name: "exec with a command over 8,000 characters", path: `/api/rooms/${ROOM}/sandbox/exec`, body: json({ cmd: `echo ${"z".repeat(8_000)}` }), status: 400, code: "invalid_request", detail: ["cmd", /at most 8000/] },
  { name: "exec with the wrong field name", path: `/api/rooms/${ROOM}/sandbox/exec`, body: json({ command: "touch pwned" }), status: 400, code: "invalid_request", detail: ["cmd", /string/] },

  { name: "policy that is neither auto nor approve", method: "PUT", path: `/api/rooms/${ROOM}/policy`, body: json({ runPolicy: "yolo", userId: "U1" }), status: 400, code: "invalid_request", detail: ["runPolicy", /auto or approve/] },
  { name: "policy change saying nobody did it", method: "PUT", path: `/api/rooms/${ROOM}/policy`, body: json({ runPolicy: "auto" }), status: 400, code: "invalid_request", detail: ["userId", /string/] },
  { name: "__proto__ carrying the policy", method: "PUT", path: `/api/rooms/${ROOM}/policy`, body: '{"__proto__": {"runPolicy": "auto", "userId": "U1"}}', status: 400, code: "invalid_request", detail: ["runPolicy", /auto or approve/] },
  { name: "decision on an unknown approval", path: `/api/rooms/${ROOM}/approvals/00000000-0000-4000-8000-000000000000`, body: json({ decision: "run", userId: "U1" }), status: 404, code: "not_found" },
  { name: "decision that is neither run nor skip", path: `/api/rooms/${ROOM}/approvals/abc`, body: json({ decision: "yes", userId: "U1" }), status: 400, code: "invalid_request", detail: ["decision", /run or skip/] },
  { name: "approval id carrying SQL", path: `/api/rooms/${ROOM}/approvals/x%27%20OR%20%271%27%3D%271`, body: json({ decision: "run", userId: "U1" }), status: 400, code: "invalid_request", detail: ["approvalId", /1-64 characters/] },
  { name: "approval id over 64 characters", path: `/api/rooms/${ROOM}/approvals/${"a".repeat(65)}`, body: json({ decision: "run", userId: "U1" }), status: 400, code: "invalid_request", detail: ["approvalId", /1-64 characters/] },
  { name: "reset by a user id over 128 characters", method: "DELETE", path: `/api/rooms/${ROOM}?userId=${"u".repeat(129)}`, status: 400, code: "invalid_request", detail: ["userId", /1-128 characters/] },
  { name: "GET on an approval", method: "GET", path: `/api/rooms/${ROOM}/approvals/abc`, status: 405, code: "method_not_allowed" },
  { name: "POST on the audit", path: `/api/rooms/${ROOM}/audit`, body: json({}), status: 405, code: "method_not_allowed" },
  { name: "no Authorization header", auth: null, body: json({ text: "hi" }), status: 401, code: "unauthorized" },
  { name: "a wrong token", auth: "Bearer not-the-token", body: json({ text: "hi" }), status: 401, code: "unauthorized" },
  { name: "an empty bearer token", auth: "Bearer ", body: json({ text: "hi" }), status: 401, code: "unauthorized" },
  { name: "Basic instead of Bearer", auth: "Basic dXNlcjpwYXNz", body: json({ text: "hi" }), status: 401, code: "unauthorized" },
  { name: "PUT on message", method: "PUT", body: json({ text: "hi" }), status: 405, code: "method_not_allowed" },
  { name: "GET on message", method: "GET", status: 405, code: "method_not_allowed" },
  { name: "an unknown route", path: "/api/admin", method: "GET", status: 404, code: "not_found" },
];

async function send(a: Attempt): Promise<{ status: number; text: string; type: string }> {
  const headers: Record<string, string> = { "content-type": "application/json", ...a.headers };
  const auth = a.auth === undefined ? `Bearer ${rig.stack.token}` : a.auth;
  if (auth !== null) headers.authorization = auth;
  const init: RequestInit & { duplex?: "half" } = { method: a.method ?? "POST", headers, body: a.body };
  if (a.body instanceof ReadableStream) init.duplex = "half";
  const res = await fetch(`${rig.stack.workerUrl}${a.path ?? `/api/rooms/${ROOM}/message`}`, init);
  return { status: res.status, text: await res.text(), type: res.headers.get("content-type") ?? "" };
}

describe("hostile requests at the Worker API", () => {
  it.each(attempts.map((a) => [a.name, a] as const))("%s: refused with a clear JSON error, nothing runs", async (_name, a) => {
    const modelCalls = rig.stack.model.calls.length;
    const commands = rig.executed().length;
    const res = await send(a);
    expect(res.status).toBe(a.status);
    expect(res.type).toContain("application/json");
    const body = JSON.parse(res.text) as { error?: unknown; code?: unknown; details?: Record<string, string[]> };
    expect(body.code).toBe(a.code);
    expect(typeof body.error).toBe("string");
    expect(res.text).not.toMatch(INTERNALS);
    if (a.detail) {
      const [field, words] = a.detail;
      expect(body.details?.[field]?.join(" ")).toMatch(words);
    }
    expect(rig.stack.model.calls.length).toBe(modelCalls);
    expect(rig.executed().length).toBe(commands);
  });

  it("leaves the room it was aimed at empty and working", async () => {
    expect((await rig.stack.client.history(ROOM)).messages).toEqual([]);
    expect(await rig.stack.client.policy(ROOM)).toEqual({ runPolicy: "auto", source: "default" });
    expect((await rig.stack.client.audit(ROOM)).entries).toEqual([]);
    const res = await rig.stack.client.message(ROOM, { text: "SAY: still-fine <run>ls -A</run>" });
    expect(res.reply).toMatch(/^still-fine\n/);
    // A fresh workspace: nothing any refused request asked for was created.
    expect(res.runs).toMatchObject([{ cmd: "ls -A", exitCode: 0, stdout: "" }]);
    expect(rig.executed().filter((c) => c.includes("pwned"))).toEqual([]);
  });
});
