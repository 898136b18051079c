import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestExecutor, type TestExecutor } from "./test-support.ts";

// The HTTP surface: bad requests get a 4xx with a message that says what to fix.

let ex: TestExecutor;
beforeAll(async () => {
  ex = await startTestExecutor();
});
afterAll(async () => {
  await ex?.stop();
});

const execute = (body: unknown) => ex.request("POST", "/api/execute", { body: typeof body === "string" ? body : JSON.stringify(body) });

describe("POST /api/execute validation", () => {
  test.each([
    ["missing command", { sessionId: "sandbox-a" }],
    ["empty command", { command: "", sessionId: "sandbox-a" }],
    ["blank command", { command: "  \n ", sessionId: "sandbox-a" }],
    ["non-string command", { command: ["ls"], sessionId: "sandbox-a" }],
  ])("%s → 400 naming the command", async (_name, body) => {
    const r = await execute(body);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("command must be a non-empty string");
  });

  test("a command holding a NUL character → 400, and the answer does not quote the command", async () => {
    const r = await execute({ command: "echo xoxb-1234567890-abcdefghijkl\u0000", sessionId: "sandbox-a" });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("command must not contain NUL characters (\\u0000)");
    expect(JSON.stringify(r.body)).not.toContain("xoxb");
  });

  test.each([
    ["missing", undefined],
    ["path traversal", "../etc"],
    ["dots only", ".."],
    ["slash", "a/b"],
    ["space", "sandbox a"],
    ["too long", "s".repeat(221)],
    ["empty", ""],
  ])("session id %s → 400 naming the sessionId", async (_name, sessionId) => {
    const r = await execute({ command: "true", sessionId });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/^sessionId must be/);
  });

  test("the longest allowed session id works", async () => {
    const r = await execute({ command: "echo ok", sessionId: "s".repeat(220) });
    expect(r).toMatchObject({ status: 200, body: { stdout: "ok\n", exitCode: 0, success: true } });
  });

  test.each([0, -5, 600_001, 1.5, "1000", null])("timeoutMs %s → 400", async (timeoutMs) => {
    const r = await execute({ command: "true", sessionId: "sandbox-a", timeoutMs });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("timeoutMs must be an integer number of milliseconds from 1 to 600000");
  });

  test.each([
    ["empty", ""],
    ["too long", "p".repeat(201)],
    ["with a space", "slack-T1:U 1"],
    ["with a line break", "slack-T1:U1\nX"],
    ["not a string", 42],
  ])("person %s → 400 naming the person", async (_name, person) => {
    const r = await execute({ command: "true", sessionId: "sandbox-a", person });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("person must be a string of 1-200 printable characters");
  });

  test("non-JSON and non-object bodies → 400", async () => {
    expect(await execute("command=ls")).toEqual({ status: 400, body: { error: "request body must be JSON" } });
    expect(await execute("")).toEqual({ status: 400, body: { error: "request body must be JSON" } });
    const arr = await execute([1, 2]);
    expect(arr.status).toBe(400);
    expect(arr.body.error).toMatch(/body must be a JSON object/);
  });

  test("a body over 64 KiB → 413, and the executor keeps serving", async () => {
    const r = await execute({ command: `echo ${"x".repeat(70 * 1024)}`, sessionId: "sandbox-a" });
    expect(r).toEqual({ status: 413, body: { error: "request body is larger than 65536 bytes" } });
    const next = await execute({ command: "echo fine", sessionId: "sandbox-a" });
    expect(next.body.stdout).toBe("fine\n");
  });

  test("several problems at once: the first is the error, all are in details", async () => {
    const r = await execute({ command: "", sessionId: "..", timeoutMs: 0 });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.details).sort()).toEqual(["command", "sessionId", "timeoutMs"]);
  });
});

describe("auth", () => {
  test("a wrong or missing token → 401, on execute and on delete", async () => {
    const body = JSON.stringify({ command: "echo should-not-run > ran.txt", sessionId: "sandbox-auth" });
    for (const token of [null, "wrong", ex.token + "x", ""]) {
      const r = await ex.request("POST", "/api/execute", { body, token });
      expect(r).toEqual({ status: 401, body: { error: "missing or wrong Authorization: Bearer <SANDBOX_TOKEN>" } });
      expect((await ex.request("DELETE", "/api/sessions/sandbox-auth", { token })).status).toBe(401);
    }
    // Nothing ran.
    const check = await ex.exec("sandbox-auth", "ls -A | wc -l");
    expect(check.stdout).toBe("0\n");
  });

  test("ping needs no token and says how commands are isolated", async () => {
    expect(await ex.request("GET", "/api/ping", { token: null })).toEqual({ status: 200, body: { ok: true, isolation: "bwrap" } });
  });
});

describe("routes", () => {
  test("wrong method → 405 with Allow; unknown route → 404", async () => {
    const wrong = await ex.request("GET", "/api/execute");
    expect(wrong.status).toBe(405);
    expect(wrong.body.error).toBe("GET is not allowed on /api/execute; use POST");
    expect((await ex.request("PUT", "/api/sessions/sandbox-a")).status).toBe(405);
    expect(await ex.request("GET", "/api/nothing")).toEqual({ status: 404, body: { error: "no route GET /api/nothing" } });
  });

  test("DELETE with a bad session id → 400, and nothing outside the sessions is touched", async () => {
    // ("." and ".." (also as %2E) never arrive as ids: URL parsing resolves them away.)
    for (const id of ["...", "a%2Fb", "%E0%A4%A", "x".repeat(221)]) {
      const r = await ex.request("DELETE", `/api/sessions/${id}`);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/session/i);
    }
    // The executor still runs commands (its root and etc files are intact).
    expect((await ex.exec("sandbox-a", "cat /etc/hostname")).stdout).toBe("sandbox\n");
  });
});
