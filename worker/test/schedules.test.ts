import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inRoom, audit } from "./control-helpers.ts";
import { feedUntilItems, readFeed } from "./feed-helpers.ts";
import { api, freshRoom, history, killRoom, modelCallsWith, roomStub, send, until } from "./helpers.ts";

type View = { id: string; when: string; ask: string; userId: string; nextRunAt: number; createdAt: number; target: unknown };
type Item = { roomId: string; key: string; deliver: { platform: string; place: Record<string, string> }; question: string; answer: { reply: string; runs: unknown[]; pending?: { cmd: string }[] }; traceparent?: string };

const target = (channel: string) => ({ platform: "slack", place: { channel } });

async function schedule(room: string, body: Record<string, unknown>) {
  const res = await api(`/api/rooms/${room}/schedules`, { method: "POST", json: { userId: "U-sched", target: target("C-sched"), ...body } });
  return { status: res.status, body: (await res.json()) as any };
}

async function list(room: string): Promise<View[]> {
  const res = await api(`/api/rooms/${room}/schedules`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { schedules: View[] }).schedules;
}

async function unschedule(room: string, id: string, json: unknown = { userId: "U-other" }) {
  const res = await api(`/api/rooms/${room}/schedules/${id}`, { method: "DELETE", json });
  return { status: res.status, body: (await res.json()) as any };
}

/** Drives the room's clock to `at`: the due schedules run as the alarm would run them then. */
function runDueAt(room: string, at: number): Promise<unknown> {
  return inRoom(roomStub(room), (agent) => agent.room.schedules.runDue(at));
}

/** Makes every schedule of the room due now, as if its time had come while nobody looked. */
function makeDue(room: string): Promise<unknown> {
  return inRoom(roomStub(room), (agent) => agent.ctx.storage.sql.exec(`UPDATE duet_schedules SET next_at = ?`, Date.now() - 1));
}

function alarmAt(room: string): Promise<number | null> {
  return inRoom(roomStub(room), (agent) => agent.ctx.storage.getAlarm()) as Promise<number | null>;
}

/** Reads the platform's feed until this room's items show up. */
const feedItems = (room: string, platform = "slack") => feedUntilItems<Item>(platform, room);

describe("schedules: asks a room runs on its own", () => {
  it("a due schedule asks its question as a turn and offers the answer to the channel as a new message", async () => {
    const room = freshRoom("cli-sched");
    const made = await schedule(room, { when: "every 30m", ask: `SAY: report-${room} <run>echo scheduled-out</run>` });
    expect(made.status).toBe(200);
    const { id, nextRunAt, createdAt } = made.body.schedule as View;
    expect(id).toMatch(/^[a-z0-9]{8}$/);
    expect(nextRunAt - createdAt).toBe(30 * 60_000);
    // The room's one alarm is armed for the run.
    expect(await alarmAt(room)).toBe(nextRunAt);

    await runDueAt(room, nextRunAt);
    const items = await feedItems(room);
    expect(items).toHaveLength(1);
    expect(items[0].deliver).toEqual({ platform: "slack", place: { channel: "C-sched", schedule: id } });
    expect(items[0].answer.reply).toContain("Output (echo scheduled-out):\nscheduled-out");
    expect(await modelCallsWith(`report-${room}`)).toHaveLength(1);
    // The next run is the next half hour from when it was made, and the audit says who set it and that it ran.
    expect((await list(room))[0].nextRunAt).toBe(nextRunAt + 30 * 60_000);
    expect((await audit(room)).map((e) => [e.kind, e.scheduleId, e.requestedBy])).toEqual([
      ["scheduled", id, "U-sched"],
      ["scheduled-run", id, "U-sched"],
      ["auto", undefined, "U-sched"],
    ]);
  });

  it("a run writes 2 rows besides its turn's own (its next time, its audit entry); an ordinary turn writes nothing more", async () => {
    const room = freshRoom("cli-sched");
    const rows = async () => ((await (await api(`/api/rooms/${room}/stats`)).json()) as { rowsWrittenSinceStart: number }).rowsWrittenSinceStart;
    const { nextRunAt } = (await schedule(room, { when: "every 1h", ask: "SAY: counted run" })).body.schedule as View;
    let before = await rows();
    expect((await send(room, "SAY: ordinary", { idempotencyKey: `plain-${room}`, deliver: target("C-sched") })).status).toBe(200);
    // Accepted and answered, as without schedules.
    expect((await rows()) - before).toBe(2);
    before = await rows();
    await runDueAt(room, nextRunAt);
    await until(async () => (await history(room)).length === 4, "the scheduled run's answer");
    expect((await rows()) - before).toBe(4);
  });

  it("the room's own alarm runs what is due, and the same run is never asked twice", async () => {
    const room = freshRoom("cli-sched");
    const ask = `SAY: alarm-run-${room}`;
    const { id } = (await schedule(room, { when: "every day 09:00 Europe/Berlin", ask })).body.schedule as View;
    await makeDue(room);
    const dueAt = (await list(room))[0].nextRunAt;
    expect(await runDurableObjectAlarm(roomStub(room))).toBe(true);
    // The same run taken a second time (as when moving it on was lost): its key joins the first turn instead of asking again.
    const movedTo = (await list(room))[0].nextRunAt;
    await inRoom(roomStub(room), (agent) => agent.ctx.storage.sql.exec(`UPDATE duet_schedules SET next_at = ?`, dueAt));
    expect(await runDueAt(room, dueAt)).toHaveLength(1);
    expect((await list(room))[0].nextRunAt).toBe(movedTo);
    const [item] = await feedItems(room);
    expect(item).toMatchObject({ question: ask, deliver: { place: { schedule: id } } });
    // Moved to the next 09:00 in Berlin, and the alarm re-armed for it.
    const next = (await list(room))[0].nextRunAt;
    expect(next).toBeGreaterThan(Date.now());
    expect(new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Berlin", hour: "2-digit", minute: "2-digit" }).format(next)).toBe("09:00");
    expect(await alarmAt(room)).not.toBeNull();
    // An alarm that fires again finds nothing due: a later turn (the barrier) is answered with no second scheduled ask.
    await runDurableObjectAlarm(roomStub(room));
    expect((await send(room, "SAY: barrier")).status).toBe(200);
    expect(await modelCallsWith(`alarm-run-${room}`)).toHaveLength(1);
  });

  it("the history marks a scheduled run's question as the schedule's, after a restart too; a typed one has no mark", async () => {
    const room = freshRoom("cli-sched");
    // A CLI room: no channel, the answers are kept in the room's history.
    const { id, nextRunAt } = (await schedule(room, { when: "every 30m", ask: `SAY: marked-${room}`, target: undefined })).body.schedule as View;
    expect((await send(room, "SAY: typed")).status).toBe(200);
    await runDueAt(room, nextRunAt);
    await until(async () => (await history(room)).length === 4, "the scheduled run in the history");
    const asked = (await history(room)).filter((m) => m.role === "user") as { text: string; schedule?: string }[];
    expect(asked.map((m) => [m.text, m.schedule])).toEqual([["SAY: typed", undefined], [`SAY: marked-${room}`, id]]);
    await killRoom(room);
    expect(((await history(room)).filter((m) => m.role === "user") as { schedule?: string }[]).map((m) => m.schedule)).toEqual([undefined, id]);
  });

  it("a turn keeping the room awake never pushes its alarm past a schedule due sooner (an `every 10s` ran every 30 s)", async () => {
    const room = freshRoom("cli-sched");
    await schedule(room, { when: "every day 09:00 Europe/Berlin", ask: `SAY: soon-${room}` });
    // A schedule due in 5 s, as `every 10s` is right after a run, with the alarm armed for it.
    const soon = Date.now() + 5_000;
    await inRoom(roomStub(room), async (agent) => {
      agent.ctx.storage.sql.exec(`UPDATE duet_schedules SET next_at = ?`, soon);
      await agent.room.schedules.arm();
    });
    expect(await alarmAt(room)).toBe(soon);
    // A turn arms the keep-awake alarm 30 s out; the scheduled run's own turn does the same.
    expect((await send(room, "SAY: a turn meanwhile")).status).toBe(200);
    expect(await alarmAt(room)).toBe(soon);
  });

  it("survives a restart: the schedule is kept and the alarm still armed for it", async () => {
    const room = freshRoom("cli-sched");
    const { id, nextRunAt } = (await schedule(room, { when: "0 9 * * 1-5 America/New_York", ask: `SAY: after-restart-${room}` })).body.schedule as View;
    await killRoom(room);
    expect((await list(room)).map((s) => [s.id, s.nextRunAt])).toEqual([[id, nextRunAt]]);
    expect(await alarmAt(room)).toBe(nextRunAt);
    await makeDue(room);
    await killRoom(room);
    expect(await runDurableObjectAlarm(roomStub(room))).toBe(true);
    expect((await feedItems(room))[0].question).toBe(`SAY: after-restart-${room}`);
  });

  it("a run that fails (the model down) is posted to its channel as a message of its own, once, and kept out of the history", async () => {
    const room = freshRoom("cli-sched");
    const { id, nextRunAt } = (await schedule(room, { when: "every 1h", ask: `FAIL:503 down-${room}` })).body.schedule as View;
    await runDueAt(room, nextRunAt);
    const [item, ...more] = await feedItems(room);
    expect(more).toEqual([]);
    expect(item.deliver).toEqual({ platform: "slack", place: { channel: "C-sched", schedule: id } });
    expect(item.question).toBe(`FAIL:503 down-${room}`);
    expect(item.answer.reply).toMatch(new RegExp(`^⚠️ The scheduled ask \`${id}\` could not run: .*HTTP 503.*\. \\(ref [0-9a-f]{8}\\)$`));
    // The ref is the run's trace, which the notice's delivery joins.
    expect(item.answer.reply.endsWith(`(ref ${item.traceparent?.slice(3, 11)})`)).toBe(true);
    expect(item.answer.runs).toEqual([]);
    expect(await history(room)).toEqual([]);
    // Confirmed by the bot that posted it: a later read (the barrier) has nothing of this room's, and the run is not asked again.
    expect((await api(`/api/rooms/${room}/deliveries`, { method: "POST", json: { key: item.key, messageId: "1700000000.000900" } })).status).toBe(200);
    await runDueAt(room, nextRunAt);
    expect((await readFeed("slack", room)).items).toEqual([]);
    expect((await send(room, "SAY: barrier")).status).toBe(200);
    expect((await history(room)).map((m) => [m.role, m.text.slice(0, 12)])).toEqual([["user", "SAY: barrier"], ["agent", "barrier"]]);
  });

  it("under approve, a scheduled run proposes and waits like any other turn", async () => {
    const room = freshRoom("cli-sched");
    await api(`/api/rooms/${room}/policy`, { method: "PUT", json: { runPolicy: "approve", userId: "U-admin" } });
    const { nextRunAt } = (await schedule(room, { when: "every 1h", ask: `SAY: approve-${room} <run>echo must-wait</run>` })).body.schedule as View;
    await runDueAt(room, nextRunAt);
    const [item] = await feedItems(room);
    expect(item.answer.runs).toEqual([]);
    expect(item.answer.pending?.map((p) => p.cmd)).toEqual(["echo must-wait"]);
  });

  it("unschedule removes it, and DELETE of the room removes them all; neither runs afterwards", async () => {
    const room = freshRoom("cli-sched");
    const a = (await schedule(room, { when: "every 1h", ask: `SAY: gone-a-${room}` })).body.schedule as View;
    await schedule(room, { when: "every 2h", ask: `SAY: gone-b-${room}` });
    const removed = await unschedule(room, a.id);
    expect(removed).toMatchObject({ status: 200, body: { schedule: { id: a.id } } });
    expect((await list(room)).map((s) => s.ask)).toEqual([`SAY: gone-b-${room}`]);
    expect((await audit(room)).map((e) => [e.kind, e.requestedBy]).slice(-1)).toEqual([["unscheduled", "U-other"]]);

    expect((await api(`/api/rooms/${room}`, { method: "DELETE" })).status).toBe(200);
    expect(await list(room)).toEqual([]);
    await runDueAt(room, Date.now() + 366 * 24 * 3600_000);
    expect((await send(room, "SAY: barrier")).status).toBe(200);
    expect(await modelCallsWith(`gone-a-${room}`)).toHaveLength(0);
    expect(await modelCallsWith(`gone-b-${room}`)).toHaveLength(0);
  });

  it("refuses bad input with a clear message and no 500", async () => {
    const room = freshRoom("cli-sched");
    const refused = async (body: Record<string, unknown>) => {
      const r = await schedule(room, { when: "every 1h", ask: "SAY: hi", ...body });
      expect(r.status).toBeLessThan(500);
      return r;
    };
    // A secret in the ask is kept, listed and audited redacted, as a question's is.
    const secret = (await schedule(room, { when: "every 9h", ask: "SAY: use sk-test-openai-key-0123456789 please" })).body.schedule as View;
    expect(JSON.stringify(await list(room))).not.toContain("sk-test-openai-key-0123456789");
    expect(JSON.stringify(await audit(room))).not.toContain("sk-test-openai-key-0123456789");
    await unschedule(room, secret.id);
    expect((await refused({ when: "every 1s" })).body).toMatchObject({
      error: "That runs every 1 second at its most frequent; schedules here run at most every 15 minutes.",
      details: { when: [expect.stringContaining("at most every 15 minutes")] },
    });
    expect((await refused({ when: "every day 09:00 Mars/Olympus" })).body.error).toMatch(/Unknown time zone `Mars\/Olympus`/);
    expect((await refused({ when: "0 0 9 * * 1-5" })).body.error).toMatch(/A cron line has 5 fields .* this one has 6/);
    expect((await refused({ when: "" })).body.details).toEqual({ when: ["When cannot be empty"] });
    expect((await refused({ when: "x".repeat(500) })).body.details.when[0]).toMatch(/at most 120/);
    expect((await refused({ ask: "  " })).body.details).toEqual({ ask: ["Ask cannot be empty"] });
    expect((await refused({ userId: undefined })).status).toBe(400);
    expect((await refused({ target: { platform: "irc", place: {} } })).body.details.target).toBeDefined();
    for (let i = 0; i < 10; i++) expect((await schedule(room, { when: `every ${i + 1}h`, ask: "SAY: hi" })).status).toBe(200);
    const eleventh = await refused({ when: "every 11h" });
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.error).toMatch(/already has 10 schedules, the most it may have/);
    expect(await unschedule(room, "nosuch1")).toMatchObject({ status: 404, body: { error: expect.stringMatching(/no schedule `nosuch1`/) } });
    expect((await unschedule(room, "BAD!id")).status).toBe(400);
    expect((await unschedule(room, (await list(room))[0].id, {})).status).toBe(400);
    expect((await api(`/api/rooms/${room}/schedules`, { method: "PUT" })).status).toBe(405);
  });
});
