import { describe, expect, it } from "vitest";
import { api, execCalls, freshRoom, history, modelCallsWith, send } from "./helpers.ts";
import { unique } from "./live-helpers.ts";

const TOKEN = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp";

const exec = (room: string, json: Record<string, unknown>) => api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json });

describe("direct runs in the room's history", () => {
  it("joins the history as `Run:` with its output, redacted, and the model's next context sees it", async () => {
    const room = freshRoom();
    const marker = unique("direct");
    expect((await exec(room, { cmd: `echo ${marker} ${TOKEN}`, userId: "U1" })).status).toBe(200);
    const shown = `echo ${marker} xoxb-[redacted]`;
    expect(await history(room)).toEqual([
      { role: "user", userId: "U1", text: `Run: ${shown}`, ts: expect.any(Number) },
      { role: "agent", text: `Output (${shown}):\n${marker} xoxb-[redacted]`, ts: expect.any(Number) },
    ]);
    const ask = unique("after-direct");
    expect((await send(room, `SAY: noted ${ask}`)).status).toBe(200);
    const [call] = await modelCallsWith(ask);
    const contents = call.messages.map((m) => m.content);
    // Under the line naming who ran it, as every person's message is.
    expect(contents).toContain(`[from user id "U1"]\nRun: ${shown}`);
    // Its result reaches the model as a data message, as an approved run's does.
    expect(contents.find((c) => c.includes(`$ ${shown}`))).toMatch(new RegExp(`exit code: 0\\nstdout:\\n${marker} xoxb-\\[redacted\\]`));
    expect(JSON.stringify(call.messages)).not.toContain(TOKEN);
  });

  it("a keyed run is in the history once, however often it is retried", async () => {
    const room = freshRoom();
    const body = { cmd: "echo keyed-once", idempotencyKey: unique("IntHist") };
    const first = await (await exec(room, body)).json();
    expect(await (await exec(room, body)).json()).toEqual({ ...(first as object), replayed: true });
    expect((await history(room)).map((m) => m.text)).toEqual(["Run: echo keyed-once", "Output (echo keyed-once):\nkeyed-once"]);
  });

  it("a run the sandbox could not answer leaves no history", async () => {
    const room = freshRoom();
    expect((await exec(room, { cmd: "__EXECUTOR_FAIL__" })).status).toBe(502);
    expect(await history(room)).toEqual([]);
  });
});

describe("who a command runs for", () => {
  it("a direct run and a model's command each reach the executor naming the person, with their workspace", async () => {
    const room = `slack-TFAIR-${unique("C").replace(/[^A-Za-z0-9]/g, "")}`;
    expect((await exec(room, { cmd: "echo direct", userId: "UDIRECT" })).status).toBe(200);
    expect((await send(room, "SAY: <run>echo asked</run>", { userId: "UASKER" })).status).toBe(200);
    const calls = (await execCalls(`sandbox-${room}`)) as Array<{ command: string; person?: string }>;
    expect(calls.map((c) => [c.command, c.person])).toEqual([
      ["echo direct", encodeURIComponent("slack-TFAIR:UDIRECT")],
      ["echo asked", encodeURIComponent("slack-TFAIR:UASKER")],
    ]);
  });
});
