import { describe, expect, it } from "vitest";
import { api, execCalls, freshRoom, history, modelCallsWith, send } from "./helpers.ts";
import { killedCommands, modelAborted, release, stop, stream, unique, withoutTimes } from "./live-helpers.ts";

describe("a turn streamed live", () => {
  it("sends the first text while the model is still writing", async () => {
    const room = freshRoom();
    const hold = unique("hold");
    const live = await stream(room, `HOLD:${hold} CHUNK:12 SAY: Looking at it now, one moment.`);
    expect(live.res.status).toBe(200);
    expect(live.res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    // The fake model sends nothing past its first piece ("Looking at i") until released: this text came first.
    const first = await live.until("text");
    expect(first?.data.delta.length).toBeGreaterThan(0);
    await release(hold);
    const events = await live.rest();
    const done = events.at(-1);
    expect(done?.event).toBe("done");
    const text = events.flatMap((e) => (e.event === "text" ? [e.data.delta] : [])).join("");
    expect(text).toBe("Looking at it now, one moment.");
  });

  it("never lets a piece of a split <run> tag out, runs the commands in order, and ends on the JSON answer", async () => {
    const [streamed, plain] = [freshRoom(), freshRoom()];
    const script = "CHUNK:3 SAY: First I list: <run>echo one</run>\nThen I count: <run>echo two</run>\nThat is all.";
    const live = await stream(streamed, script, { userId: "U1" });
    const events = await live.rest();
    for (const e of events) if (e.event === "text") expect(e.data.delta).not.toMatch(/<|>|\/?run\b/);
    const runs = events.filter((e) => e.event === "run-start" || e.event === "run-end").map((e) => `${e.event} ${e.data.index} ${e.data.cmd}`);
    expect(runs).toEqual(["run-start 0 echo one", "run-end 0 echo one", "run-start 1 echo two", "run-end 1 echo two"]);
    const done = events.at(-1);
    expect(done?.event).toBe("done");
    expect(events.filter((e) => e.event === "done" || e.event === "error")).toHaveLength(1);
    // The same question asked without a stream: the same answer and the same history.
    const json = await send(plain, script, { userId: "U1" });
    expect(withoutTimes(done!.data)).toEqual(withoutTimes(json.body));
    expect(withoutTimes(await history(streamed))).toEqual(withoutTimes(await history(plain)));
    const text = events.flatMap((e) => (e.event === "text" ? [e.data.delta] : [])).join("");
    expect(text).toBe(json.body.explanation);
  });

  it("a client that hangs up cancels nothing: the turn is stored once and a retry gets it replayed", async () => {
    const room = freshRoom();
    const hold = unique("hangup");
    const text = `HOLD:${hold} CHUNK:10 SAY: Done in a moment <run>echo stored-once</run>`;
    const live = await stream(room, text, { idempotencyKey: `Ev-${hold}` });
    await live.until("text");
    void live.hangUp();
    await release(hold);
    const again = await send(room, text, { idempotencyKey: `Ev-${hold}` });
    expect(again.status).toBe(200);
    expect(again.body.replayed).toBe(true);
    expect(again.body.runs).toMatchObject([{ cmd: "echo stored-once", exitCode: 0, stdout: "stored-once\n" }]);
    expect(await modelCallsWith(hold)).toHaveLength(1);
    expect(await history(room)).toHaveLength(2);
    // A retry asking for a stream once it is stored gets the stored answer as one `done`.
    const replay = await stream(room, text, { idempotencyKey: `Ev-${hold}` });
    const events = await replay.rest();
    expect(events.map((e) => e.event)).toEqual(["done"]);
    expect(events[0].data).toMatchObject({ replayed: true, runs: again.body.runs });
  });

  it("a retry while the turn runs gets the events so far, then the rest, from the same single turn", async () => {
    const room = freshRoom();
    const hold = unique("join");
    const text = `HOLD:${hold} CHUNK:14 SAY: Joined answer here.`;
    const first = await stream(room, text, { idempotencyKey: `Ev-${hold}` });
    await first.until("text");
    const second = await stream(room, text, { idempotencyKey: `Ev-${hold}` });
    // The retry gets the text already written before anything more is released.
    expect((await second.until("text")).data.delta).toBe((first.seen[0] as { data: { delta: string } }).data.delta);
    await release(hold);
    const [a, b] = [await first.rest(), await second.rest()];
    expect(b.slice(0, -1)).toEqual(a.slice(0, -1));
    expect(a.at(-1)?.data).not.toHaveProperty("replayed");
    expect(b.at(-1)?.data).toMatchObject({ replayed: true });
    expect(await modelCallsWith(hold)).toHaveLength(1);
  });

  it("a retry that joins a turn asked for whole gets its text in one piece, redacted", async () => {
    const room = freshRoom();
    const hold = unique("join-whole");
    const secret = `sk-${"a1".repeat(12)}`;
    // The model writes the secret itself (the question holds only its base64), so only the answer's redaction can hide it.
    const text = `HOLD:${hold} SAY64: ${btoa(`The key is ${secret} and that is all.`)}`;
    const answer = send(room, text, { idempotencyKey: `Ev-${hold}` });
    while ((await modelCallsWith(hold)).length === 0) await scheduler.wait(20);
    const joined = await stream(room, text, { idempotencyKey: `Ev-${hold}` });
    await release(hold);
    const [json, events] = [await answer, await joined.rest()];
    const texts = events.flatMap((e) => (e.event === "text" ? [e.data.delta] : []));
    expect(texts).toEqual([json.body.explanation]);
    expect(texts[0]).toMatch(/^The key is sk-\S+ and that is all\.$/);
    expect(texts[0]).not.toContain(secret);
  });

  it("run-end carries the output's summary; done carries all of it", async () => {
    const live = await stream(freshRoom(), "SAY: Counting <run>seq 1 400</run>");
    const events = await live.rest();
    const end = events.find((e) => e.event === "run-end");
    const done = events.at(-1);
    expect(end?.data).toMatchObject({ index: 0, exitCode: 0, truncated: true });
    expect(end?.data.stdout).toHaveLength(500);
    expect(done?.event === "done" && done.data.runs[0]).toMatchObject({ truncated: false, stdout: expect.stringMatching(/^1\n2\n[\s\S]*\n400\n$/) });
  });

  it("a failed turn ends its stream with one error event a person can act on", async () => {
    const live = await stream(freshRoom(), "FAIL:400");
    const events = await live.rest();
    expect(events).toEqual([{ event: "error", data: { code: "model_error", message: expect.stringMatching(/HTTP 400/), retryable: true } }]);
  });

  it("a 429 with Retry-After is waited out and the person gets the answer", async () => {
    const room = freshRoom();
    const name = unique("rate");
    const { status, body } = await send(room, `RATE:${name} SAY: worth the wait`);
    expect(status).toBe(200);
    expect(body.reply).toBe("worth the wait");
    expect(await modelCallsWith(name)).toHaveLength(2);
  });

  it("streaming writes no more rows than the JSON answer", async () => {
    const room = freshRoom();
    await send(room, "warm up");
    const rows = async () => ((await (await api(`/api/rooms/${room}/stats`)).json()) as { rowsWrittenSinceStart: number }).rowsWrittenSinceStart;
    const script = "CHUNK:2 SAY: many small pieces make up this answer <run>echo rows</run>";
    const beforeJson = await rows();
    expect((await send(room, script)).status).toBe(200);
    const jsonRows = (await rows()) - beforeJson;
    const before = await rows();
    await (await stream(room, script)).rest();
    expect((await rows()) - before).toBe(jsonRows);
    // A turn with one command: its row twice (accepted, answered), the mark before the command, one audit row.
    expect(jsonRows).toBe(4);
  });
});

describe("stopping a turn", () => {
  it("aborts the model request; the stream ends with done {stopped}, the history keeps the partial answer marked", async () => {
    const room = freshRoom();
    const name = unique("stop-model");
    const live = await stream(room, `HANG:${name} CHUNK:14 SAY: Partial words and never the rest <run>echo never</run>`, { userId: "U1" });
    await live.until("text");
    expect(await stop(room, "U2")).toEqual({ status: 200, body: { stopped: true } });
    const done = await live.until("done");
    expect(done?.data).toMatchObject({ stopped: true, runs: [] });
    expect(await modelAborted(name)).toBe(true);
    const messages = await history(room);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatchObject({ role: "user", userId: "U1" });
    expect(messages[1]).toMatchObject({ role: "agent", stopped: true, text: "Partial words\n\n[stopped before it finished]" });
    expect(await execCalls(`sandbox-${room}`)).toEqual([]);
    expect(await stop(room)).toEqual({ status: 200, body: { stopped: false } });
  });

  it("kills the running command and never starts the next", async () => {
    const room = freshRoom();
    const marker = unique("stop-cmd");
    const slow = `sleep 30 # ${marker}`;
    const live = await stream(room, `SAY: Waiting <run>${slow}</run>\nthen <run>echo next-${marker}</run>`);
    expect((await live.until("run-start"))?.data).toEqual({ index: 0, cmd: slow });
    expect((await stop(room, "U2")).body).toEqual({ stopped: true });
    const end = await live.until("run-end");
    expect(end?.data).toMatchObject({ index: 0, cmd: slow, exitCode: null, error: "stopped by U2" });
    const done = await live.until("done");
    expect(done?.data).toMatchObject({ stopped: true });
    expect(done?.data.runs).toHaveLength(1);
    expect(live.seen.filter((e) => e.event === "run-start")).toHaveLength(1);
    // The executor lists it once the killed process has gone (this test times out if it never goes).
    while (!(await killedCommands()).includes(slow)) await scheduler.wait(20);
    expect((await execCalls(`sandbox-${room}`)).map((c) => c.command)).toEqual([slow]);
    expect((await history(room))[1]).toMatchObject({ stopped: true });
    // The audit says who stopped it.
    const { entries } = (await (await api(`/api/rooms/${room}/audit`)).json()) as { entries: unknown[] };
    expect(entries).toEqual([{ at: expect.any(Number), kind: "auto", cmd: slow, exitCode: null, durationMs: expect.any(Number), stopped: true, stoppedBy: "U2" }]);
  });

  it("refuses a stop with a bad body or the wrong method, and needs the token", async () => {
    const room = freshRoom();
    const bad = await api(`/api/rooms/${room}/stop`, { method: "POST", json: { userId: 42 } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "invalid_request", details: { userId: [expect.any(String)] } });
    expect((await api(`/api/rooms/${room}/stop`, { method: "GET" })).status).toBe(405);
    expect((await api(`/api/rooms/${room}/stop`, { method: "POST", json: {}, token: null })).status).toBe(401);
  });

  it("a JSON turn that is stopped answers with stopped: true", async () => {
    const room = freshRoom();
    const name = unique("stop-json");
    const answer = send(room, `HANG:${name} SAY: Still thinking about it`);
    // Stop once the model request is underway: its first piece has been written.
    while ((await modelCallsWith(name)).length === 0) await scheduler.wait(20);
    let stopped = await stop(room);
    while (!stopped.body.stopped) stopped = await stop(room);
    const { status, body } = await answer;
    expect(status).toBe(200);
    expect(body).toMatchObject({ stopped: true, runs: [] });
    expect(await modelAborted(name)).toBe(true);
  });
});
