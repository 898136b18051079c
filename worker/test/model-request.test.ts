import { STREAM_TEXT_HEADER } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { freshRoom, modelCallsWith, send } from "./helpers.ts";
import { stream } from "./live-helpers.ts";

describe("the request the model gets", () => {
  it("carries the generation cap and temperature (defaults 1024 and 0.2)", async () => {
    const room = freshRoom();
    const marker = `settings-${room}`;
    expect((await send(room, `SAY: ok ${marker}`)).status).toBe(200);
    const [call] = await modelCallsWith(marker);
    expect(call.max_tokens).toBe(1024);
    expect(call.temperature).toBe(0.2);
  });

  it("asks for the answer whole when the caller waits for JSON, and streamed when it follows the turn live", async () => {
    const room = freshRoom();
    const whole = `whole-${room}`;
    const answered = await send(room, `SAY: one piece ${whole}`);
    expect(answered.status).toBe(200);
    expect(answered.body.reply).toBe(`one piece ${whole}`);
    expect((await modelCallsWith(whole)).map((c) => c.stream)).toEqual([false]);

    const live = `live-${room}`;
    const events = await (await stream(room, `SAY: word by word ${live}`)).rest();
    expect(events.filter((e) => e.event === "text").length).toBeGreaterThan(1);
    expect((await modelCallsWith(live)).map((c) => c.stream)).toEqual([true]);
  });

  it("asks for the answer whole when the caller follows the stream but shows the answer whole: its text comes as one event", async () => {
    const room = freshRoom();
    const whole = `stream-whole-${room}`;
    const turn = await stream(room, `CHUNK:4 SAY: in one piece ${whole}`, {}, { [STREAM_TEXT_HEADER]: "whole" });
    expect(turn.res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = await turn.rest();
    expect(events.filter((e) => e.event === "text")).toEqual([{ event: "text", data: { delta: `in one piece ${whole}` } }]);
    expect(events.at(-1)).toMatchObject({ event: "done", data: { reply: `in one piece ${whole}` } });
    expect((await modelCallsWith(whole)).map((c) => c.stream)).toEqual([false]);
  });
});

describe("the context of a later turn", () => {
  it("holds the model's earlier words with their <run> tags and each result as a separate data message", async () => {
    const room = freshRoom();
    const first = `first-${room}`;
    expect((await send(room, `SAY: Listing. <run>echo ${first}</run>`)).status).toBe(200);
    const second = `second-${room}`;
    expect((await send(room, `SAY: ok ${second}`)).status).toBe(200);
    const [call] = await modelCallsWith(second);
    const contents = call.messages.map((m) => `${m.role}: ${m.content}`);
    const assistant = call.messages.find((m) => m.role === "assistant");
    // The model's own text, tags kept, and no output inside it.
    expect(assistant?.content).toBe(`Listing. <run>echo ${first}</run>`);
    const output = call.messages.find((m) => m.role === "user" && m.content.includes("[command output"));
    expect(output?.content).toContain(`$ echo ${first}`);
    expect(output?.content).toMatch(/exit code: 0/);
    // Order: question, the model's answer, the output, then the new question last.
    const at = (s: string) => contents.findIndex((c) => c.includes(s));
    expect(at(`assistant: Listing.`)).toBeGreaterThan(at(`user: SAY: Listing.`));
    expect(at("user: [command output")).toBeGreaterThan(at(`assistant: Listing.`));
    expect(contents[contents.length - 1]).toContain(second);
  });
});
