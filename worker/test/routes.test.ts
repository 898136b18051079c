import { describe, expect, it } from "vitest";
import { api, freshRoom, send } from "./helpers.ts";

describe("routes and admission", () => {
  it("answers /health without a token", async () => {
    const res = await api("/health", { token: null });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("ok");
  });

  it("refuses /api without the token, or with a wrong one", async () => {
    const room = freshRoom();
    for (const token of [null, "wrong", ""]) {
      const res = await api(`/api/rooms/${room}/messages`, { token });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: "unauthorized" });
    }
  });

  it("accepts the previous token during a rotation, and nothing close to either", async () => {
    const room = freshRoom();
    expect((await api(`/api/rooms/${room}/messages`, { token: "previous-token-9876543210" })).status).toBe(200);
    for (const token of ["previous-token-987654321", "test-token-0123456789x", "previous-token-9876543210,test-token-0123456789", "PREVIOUS-TOKEN-9876543210"]) {
      expect((await api(`/api/rooms/${room}/messages`, { token })).status, token).toBe(401);
    }
  });

  it("answers a message with reply, messages and runs", async () => {
    const room = freshRoom();
    const { status, body } = await send(room, "hello there", { userId: "U1" });
    expect(status).toBe(200);
    expect(body.reply).toBe("Echo: hello there");
    expect(body.runs).toEqual([]);
    expect(body.messages).toMatchObject([
      { role: "user", userId: "U1", text: "hello there" },
      { role: "agent", text: "Echo: hello there" },
    ]);
  });

  it("rejects empty, oversized and malformed bodies with 400/413 and zod details", async () => {
    const room = freshRoom();
    const empty = await send(room, "   ");
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ error: "invalid request", code: "invalid_request", details: { text: ["Text cannot be empty"] } });

    const long = await send(room, "x".repeat(8_001));
    expect(long.status).toBe(400);
    expect(long.body.details.text[0]).toMatch(/at most 8000/);

    const wrongType = await api(`/api/rooms/${room}/message`, { method: "POST", json: { text: 42 } });
    expect(wrongType.status).toBe(400);

    const notJson = await api(`/api/rooms/${room}/message`, { method: "POST", body: "{not json", headers: { "content-type": "application/json" } });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ details: { body: [expect.stringMatching(/JSON/)] } });

    const array = await api(`/api/rooms/${room}/message`, { method: "POST", json: ["text"] });
    expect(array.status).toBe(400);

    const huge = await api(`/api/rooms/${room}/message`, { method: "POST", json: { text: "y".repeat(70_000) } });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ code: "payload_too_large" });

    // None of that reached the history.
    const hist = await api(`/api/rooms/${room}/messages`);
    expect(await hist.json()).toEqual({ messages: [] });
  });

  it("refuses an empty body and a chunked body past the limit, reading no further than the limit plus the discard allowance", async () => {
    const room = freshRoom();
    const empty = await api(`/api/rooms/${room}/message`, { method: "POST", body: "", headers: { "content-type": "application/json" } });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ code: "invalid_request", details: { body: [expect.stringMatching(/JSON/)] } });

    // No Content-Length: the body arrives in chunks and never ends. Reading it whole would never answer.
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode(`{"text":"${"z".repeat(16 * 1024)}`));
      },
    });
    const res = await api(`/api/rooms/${room}/message`, { method: "POST", body: endless, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: "request body exceeds 65536 bytes", code: "payload_too_large" });
    // 64 KiB kept plus 1 MiB read and dropped is 68 chunks of 16 KiB; a few more may be in flight when reading stops.
    expect(pulled).toBeLessThan(80);
    expect(await (await api(`/api/rooms/${room}/messages`)).json()).toEqual({ messages: [] });
  });

  it("strips control and zero-width characters; text made only of them is empty", async () => {
    const room = freshRoom();
    const blank = await send(room, "\u200b\u200d\u0007\u202e \ufeff");
    expect(blank.status).toBe(400);
    expect(blank.body.details.text).toEqual(["Text cannot be empty"]);
    const mixed = await send(room, "he\u200bllo\u0007 wor\u202eld\r\nbye");
    expect(mixed.status).toBe(200);
    expect(mixed.body.messages[0].text).toBe("hello world\nbye");
  });

  it("refuses an oversized command body with 413 and a bad one with 400", async () => {
    const room = freshRoom();
    const huge = await api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: { cmd: "x".repeat(70_000) } });
    expect(huge.status).toBe(413);
    const notJson = await api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", body: "cmd=ls" });
    expect(notJson.status).toBe(400);
  });

  it("answers 404 for unknown routes and a missing room id, 405 for wrong methods", async () => {
    expect((await api("/api/nope")).status).toBe(404);
    expect((await api("/api/rooms//message", { method: "POST", json: { text: "hi" } })).status).toBe(404);
    expect((await api("/nothing-here", { token: null })).status).toBe(404);
    const room = freshRoom();
    expect((await api(`/api/rooms/${room}/message`)).status).toBe(405);
    expect((await api(`/api/rooms/${room}/messages`, { method: "POST" })).status).toBe(405);
    expect((await api(`/api/rooms/${room}/sandbox/exec`)).status).toBe(405);
    expect((await api(`/api/rooms/${room}`, { method: "PUT" })).status).toBe(405);
  });

  it("rejects bad room ids with 400", async () => {
    for (const bad of ["a%20b", "a%2Fb", "x".repeat(201), "%E2%80%8Broom", "..%2F..%2Fetc"]) {
      const res = await api(`/api/rooms/${bad}/messages`);
      expect(res.status, bad).toBe(400);
      expect(await res.json()).toMatchObject({ details: { roomId: [expect.any(String)] } });
    }
  });
});
