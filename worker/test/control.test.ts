import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { audit, barrier, decide, inRoom, propose, proposeAt, type Pending } from "./control-helpers.ts";
import { api, execCalls, freshRoom, history, killRoom, modelCallsWith, roomStub, send, until } from "./helpers.ts";
import { release, stream, unique } from "./live-helpers.ts";

describe("run policy", () => {
  it("defaults to auto, is set per room with who set it, and survives a restart", async () => {
    const room = freshRoom();
    const other = freshRoom();
    expect(await (await api(`/api/rooms/${room}/policy`)).json()).toEqual({ runPolicy: "auto", source: "default" });
    const put = await api(`/api/rooms/${room}/policy`, { method: "PUT", json: { runPolicy: "approve", userId: "U-admin" } });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ runPolicy: "approve", source: "room" });
    await killRoom(room);
    expect(await (await api(`/api/rooms/${room}/policy`)).json()).toEqual({ runPolicy: "approve", source: "room" });
    expect(await (await api(`/api/rooms/${other}/policy`)).json()).toEqual({ runPolicy: "auto", source: "default" });
    expect(await audit(room)).toEqual([{ at: expect.any(Number), kind: "policy", runPolicy: "approve", requestedBy: "U-admin" }]);
  });
});

describe("approvals", () => {
  it("under approve a turn runs nothing and answers what waits; run executes it once and answers the result", async () => {
    const room = freshRoom();
    const [p] = await propose(room, ["echo approved-run"]);
    expect(p).toEqual({ id: expect.any(String), cmd: "echo approved-run", expiresAt: expect.any(Number), requestedBy: "U-asker" });
    expect((await history(room))[1].text).toBe("proposing\n\nWaiting for approval: echo approved-run");
    expect(await execCalls(`sandbox-${room}`)).toEqual([]);
    const res = await decide(room, p.id, "run", "U-approver");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      approval: { id: p.id, cmd: "echo approved-run", decision: "run", decidedBy: "U-approver", requestedBy: "U-asker" },
      run: { cmd: "echo approved-run", exitCode: 0, stdout: "approved-run\n" },
    });
    expect((await execCalls(`sandbox-${room}`)).map((c) => c.command)).toEqual(["echo approved-run"]);
  });

  it("a live turn under approve streams no command: its done event carries what waits", async () => {
    const room = freshRoom();
    await api(`/api/rooms/${room}/policy`, { method: "PUT", json: { runPolicy: "approve", userId: "U-admin" } });
    const events = await (await stream(room, "SAY: live <run>echo live-proposed</run>")).rest();
    expect(events.filter((e) => e.event.startsWith("run-"))).toEqual([]);
    const done = events.find((e) => e.event === "done")!.data as { runs: unknown[]; pending: Pending[] };
    expect(done.runs).toEqual([]);
    expect(done.pending).toEqual([{ id: expect.any(String), cmd: "echo live-proposed", expiresAt: expect.any(Number) }]);
    expect(await barrier(room)).toEqual(["echo barrier"]);
  });

  it("a decided command's output, or its skip, joins the history the model's next turn sees", async () => {
    const room = freshRoom();
    const [run, skip] = await propose(room, ["echo seen-by-model", "rm -rf data"]);
    await decide(room, run.id, "run", "U-one");
    await decide(room, skip.id, "skip", "U-two");
    const texts = (await history(room)).slice(2).map((m) => `${m.role}:${m.userId ?? ""}:${m.text}`);
    expect(texts).toEqual([
      "user:U-one:Run: echo seen-by-model",
      "agent::Output (echo seen-by-model):\nseen-by-model",
      "user:U-two:Skip: rm -rf data",
      "agent::Skipped by U-two; not run: rm -rf data",
    ]);
    const marker = `next-${room}`;
    await send(room, `SAY: ${marker}`);
    const [call] = await modelCallsWith(marker);
    const context = call.messages.map((m) => m.content).join("\n");
    expect(context).toContain("Output (echo seen-by-model):\nseen-by-model");
    expect(context).toContain("Skipped by U-two; not run: rm -rf data");
  });

  it("skip runs nothing", async () => {
    const room = freshRoom();
    const [p] = await propose(room, ["echo never-skipped"]);
    const res = await decide(room, p.id, "skip", "U-skipper");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ approval: expect.objectContaining({ id: p.id, decision: "skip", decidedBy: "U-skipper" }) });
    expect(await barrier(room)).toEqual(["echo barrier"]);
  });

  it("an approved command waits for the turn already running, never runs beside it, and keeps its place in the history", async () => {
    const room = freshRoom();
    const [p] = await propose(room, ["echo after-the-turn"]);
    const marker = `slow-${room}`;
    const hold = unique("control-turn");
    const order: string[] = [];
    // The turn's answer waits at the model until released, so the decision and the later turn queue behind it
    // however slow the machine is.
    const turn = send(room, `HOLD:${hold} SAY: ${marker}`).then(() => order.push("turn"));
    await until(async () => (await modelCallsWith(marker)).length === 1, "the held turn's model call");
    const waiting = () => inRoom(roomStub(room), (instance) => instance.room.turns.waiting);
    const decision = decide(room, p.id, "run", "U1").then((r) => order.push(`decision ${r.status}`));
    await until(async () => (await waiting()) === 1, "the decision to be queued");
    const later = send(room, `SAY: later-${room}`).then(() => order.push("later turn"));
    await until(async () => (await waiting()) === 2, "the later turn to be queued");
    expect(order).toEqual([]);
    await release(hold);
    await Promise.all([turn, decision, later]);
    expect(order).toEqual(["turn", "decision 200", "later turn"]);
    // The history tells it in the order it ran, so the later turn's model saw the output.
    expect((await history(room)).slice(2).map((m) => m.text)).toEqual([
      `HOLD:${hold} SAY: ${marker}`,
      marker,
      "Run: echo after-the-turn",
      "Output (echo after-the-turn):\nafter-the-turn",
      `SAY: later-${room}`,
      `later-${room}`,
    ]);
    const [call] = await modelCallsWith(`later-${room}`);
    expect(call.messages.map((m) => m.content)).toContain("Output (echo after-the-turn):\nafter-the-turn");
  });

  it("a skip during a running turn answers at once; its line follows that turn in the history, before and after a restart", async () => {
    const room = freshRoom();
    const [p] = await propose(room, ["echo skipped-meanwhile"]);
    const marker = `slow-skip-${room}`;
    const hold = unique("control-skip");
    const order: string[] = [];
    const turn = send(room, `HOLD:${hold} SAY: ${marker}`).then(() => order.push("turn"));
    await until(async () => (await modelCallsWith(marker)).length === 1, "the held turn's model call");
    // The skip is answered while the turn still waits at the model.
    const skip = await decide(room, p.id, "skip", "U-skipper");
    order.push(`skip ${skip.status}`);
    await release(hold);
    await turn;
    expect(order).toEqual(["skip 200", "turn"]);
    const expected = [`HOLD:${hold} SAY: ${marker}`, marker, "Skip: echo skipped-meanwhile", "Skipped by U-skipper; not run: echo skipped-meanwhile"];
    expect((await history(room)).slice(2).map((m) => m.text)).toEqual(expected);
    await killRoom(room);
    expect((await history(room)).slice(2).map((m) => m.text)).toEqual(expected);
  });

  it("a repeated decision is 409 and changes nothing; two clicks at once run the command once", async () => {
    const room = freshRoom();
    const [a, b] = await propose(room, ["echo twice-a", "echo twice-b"]);
    expect((await decide(room, a.id, "skip", "U1")).status).toBe(200);
    for (const d of ["run", "skip"] as const) {
      const again = await decide(room, a.id, d, "U2");
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ code: "already_decided", error: "already skipped by U1" });
    }
    const both = await Promise.all([decide(room, b.id, "run", "U1"), decide(room, b.id, "run", "U2")]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await barrier(room)).toEqual(["echo twice-b", "echo barrier"]);
  });

  it("an unknown approval is 404; an expired one is 410 and runs nothing", async () => {
    const room = freshRoom();
    const unknown = await decide(room, crypto.randomUUID(), "run", "U1");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "not_found" });
    const [late] = await proposeAt(room, ["echo too-late"], Date.now() - 10_000, 5_000);
    for (const d of ["run", "skip"] as const) {
      const res = await decide(room, late.id, d, "U1");
      expect(res.status).toBe(410);
      expect(res.body).toMatchObject({ code: "approval_expired" });
    }
    expect(await barrier(room)).toEqual(["echo barrier"]);
    // Another room's approval is unknown here.
    const [elsewhere] = await propose(freshRoom(), ["echo elsewhere"]);
    expect((await decide(room, elsewhere.id, "run", "U1")).status).toBe(404);
  });

  it("a pending approval survives a restart of the room", async () => {
    const room = freshRoom();
    const [p] = await propose(room, ["echo after-restart"]);
    await killRoom(room);
    const res = await decide(room, p.id, "run", "U-approver");
    expect(res.status).toBe(200);
    expect(res.body.run).toMatchObject({ exitCode: 0, stdout: "after-restart\n" });
  });

  it("an approved command cut off by a restart is never run again; the audit and the history say its outcome is unknown", async () => {
    const room = freshRoom();
    const [p] = await propose(room, ["sleep 1; echo cut-off"]);
    const first = decide(room, p.id, "run", "U-approver").catch((e) => e);
    await until(async () => (await execCalls(`sandbox-${room}`)).length === 1, "the approved command to start");
    await killRoom(room);
    await first;
    expect(await audit(room)).toEqual([
      { at: expect.any(Number), kind: "policy", runPolicy: "approve", requestedBy: "U-admin" },
      { at: expect.any(Number), kind: "approved", cmd: "sleep 1; echo cut-off", requestedBy: "U-asker", decidedBy: "U-approver", exitCode: null, durationMs: 0 },
    ]);
    expect((await history(room)).slice(2).map((m) => m.text)).toEqual([
      "Run: sleep 1; echo cut-off",
      expect.stringMatching(/^Error \(sleep 1; echo cut-off\):\noutcome unknown/),
    ]);
    expect((await decide(room, p.id, "run", "U-again")).status).toBe(409);
    expect(await barrier(room)).toEqual(["sleep 1; echo cut-off", "echo barrier"]);
  });

  it("a replayed turn answers the same pending approvals and proposes nothing new", async () => {
    const room = freshRoom();
    await api(`/api/rooms/${room}/policy`, { method: "PUT", json: { runPolicy: "approve", userId: "U-admin" } });
    const text = "SAY: once <run>echo once</run>";
    const first = await send(room, text, { idempotencyKey: "EvApprove1" });
    const again = await send(room, text, { idempotencyKey: "EvApprove1" });
    expect(again.body).toMatchObject({ replayed: true, runs: [], pending: first.body.pending });
    const count = await inRoom(roomStub(room), (instance) => instance.room.control.approvals.sql.exec("SELECT COUNT(*) AS n FROM duet_approvals").one().n);
    expect(count).toBe(1);
  });

  it("waits DUET_APPROVAL_TTL_MS (one hour by default)", async () => {
    const room = freshRoom();
    const before = Date.now();
    const [p] = await propose(room, ["true"]);
    expect(p.expiresAt - before).toBeGreaterThanOrEqual(3_600_000);
    expect(p.expiresAt - Date.now()).toBeLessThanOrEqual(3_600_000);
  });
});

describe("audit", () => {
  it("lists direct, automatic, approved and skipped commands with who asked, who decided, exit codes, in order", async () => {
    const room = freshRoom();
    const at = expect.any(Number);
    const durationMs = expect.any(Number);
    await api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: { cmd: "echo direct", userId: "U-direct" } });
    await send(room, "SAY: auto <run>echo a1</run> <run>exit 2</run>", { userId: "U-auto" });
    const [ok, fail, skip] = await propose(room, ["echo fine", "exit 3", "rm -rf data"], "U-asker");
    await decide(room, ok.id, "run", "U-one");
    await decide(room, fail.id, "run", "U-two");
    await decide(room, skip.id, "skip", "U-three");
    const entries = await audit(room);
    expect(entries).toEqual([
      { at, kind: "direct", cmd: "echo direct", requestedBy: "U-direct", exitCode: 0, durationMs },
      { at, kind: "auto", cmd: "echo a1", requestedBy: "U-auto", exitCode: 0, durationMs },
      { at, kind: "auto", cmd: "exit 2", requestedBy: "U-auto", exitCode: 2, durationMs },
      { at, kind: "policy", runPolicy: "approve", requestedBy: "U-admin" },
      { at, kind: "approved", cmd: "echo fine", requestedBy: "U-asker", decidedBy: "U-one", exitCode: 0, durationMs },
      { at, kind: "approved", cmd: "exit 3", requestedBy: "U-asker", decidedBy: "U-two", exitCode: 3, durationMs },
      { at, kind: "skipped", cmd: "rm -rf data", requestedBy: "U-asker", decidedBy: "U-three" },
    ]);
    expect(entries.map((e) => e.at)).toEqual([...entries.map((e) => e.at)].sort((x, y) => x - y));
  });

  it("shows commands redacted, and keeps a decided command only redacted", async () => {
    const room = freshRoom();
    const token = "xoxb-1234567890-1234567890-abcdefghijklmnopqrstuvwx";
    await api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: { cmd: `echo ${token} >/dev/null` } });
    const [p] = await propose(room, [`echo ${token} >/dev/null`]);
    expect(p.cmd).not.toContain(token);
    await decide(room, p.id, "skip", "U1");
    const entries = JSON.stringify(await audit(room));
    expect(entries).toContain("echo xoxb-[redacted] >/dev/null");
    expect(entries).not.toContain(token);
    // Once decided, the approval's row keeps only the redacted command.
    const stored = await inRoom(roomStub(room), (instance) => instance.room.control.approvals.sql.exec("SELECT cmd FROM duet_approvals").toArray());
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it("a person's reset keeps the policy and the audit of runs and policy changes, adding who reset; DELETE empties it and forgets the policy", async () => {
    const room = freshRoom();
    const at = expect.any(Number);
    const durationMs = expect.any(Number);
    await send(room, "SAY: auto <run>echo before-reset</run>", { userId: "U-auto" });
    const [ran, waiting] = await propose(room, ["echo approved-before-reset", "echo gone"]);
    await decide(room, ran.id, "run", "U-one");
    await api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: { cmd: "echo direct-before-reset", userId: "U-direct" } });
    expect((await api(`/api/rooms/${room}?userId=U-resetter`, { method: "DELETE" })).status).toBe(200);
    expect(await audit(room)).toEqual([
      { at, kind: "auto", cmd: "echo before-reset", requestedBy: "U-auto", exitCode: 0, durationMs },
      { at, kind: "policy", runPolicy: "approve", requestedBy: "U-admin" },
      { at, kind: "approved", cmd: "echo approved-before-reset", requestedBy: "U-asker", decidedBy: "U-one", exitCode: 0, durationMs },
      { at, kind: "direct", cmd: "echo direct-before-reset", requestedBy: "U-direct", exitCode: 0, durationMs },
      { at, kind: "reset", requestedBy: "U-resetter" },
    ]);
    expect(await (await api(`/api/rooms/${room}/policy`)).json()).toEqual({ runPolicy: "approve", source: "room" });
    expect((await decide(room, waiting.id, "run", "U1")).status).toBe(404);
    // The next event follows the kept ones.
    await api(`/api/rooms/${room}/sandbox/exec`, { method: "POST", json: { cmd: "echo after-reset", userId: "U-direct" } });
    expect((await audit(room)).map((e) => e.cmd ?? e.kind).slice(-2)).toEqual(["reset", "echo after-reset"]);

    expect((await api(`/api/rooms/${room}`, { method: "DELETE" })).status).toBe(200);
    expect(await audit(room)).toEqual([]);
    expect(await (await api(`/api/rooms/${room}/policy`)).json()).toEqual({ runPolicy: "auto", source: "default" });
    // The approval the reset dropped never ran.
    expect(await barrier(room)).toEqual(["echo before-reset", "echo approved-before-reset", "echo direct-before-reset", "echo after-reset", "echo barrier"]);
  });

  it("a person's reset of a channel keeps its threads' audits; DELETE of the channel empties them", async () => {
    const channel = `slack-T1-${freshRoom("C").replace(/-/g, "")}`;
    const thread = `${channel}-1700000000.000100`;
    await send(thread, "SAY: in a thread <run>echo thread-run</run>", { userId: "U-auto" });
    expect((await api(`/api/rooms/${channel}?userId=U-resetter`, { method: "DELETE" })).status).toBe(200);
    expect((await audit(thread)).map((e) => `${e.kind}:${e.cmd ?? ""}:${e.requestedBy}`)).toEqual(["auto:echo thread-run:U-auto", "reset::U-resetter"]);
    // The thread registers with its channel again on its next turn, so the channel's DELETE reaches it.
    await send(thread, "SAY: again");
    expect((await api(`/api/rooms/${channel}`, { method: "DELETE" })).status).toBe(200);
    expect(await audit(thread)).toEqual([]);
  });

  it("keeps the last AUDIT_KEEP rows, reusing the oldest slot", async () => {
    const room = freshRoom();
    const rows = await runInDurableObject(roomStub(room), async (_instance, state) => {
      const { AuditLog } = await import("../src/control/audit-log.ts");
      const log = new AuditLog(state.storage, 3);
      for (let i = 1; i <= 5; i++) log.record([{ at: i, kind: "direct", cmd: `c${i}` }]);
      const count = state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM duet_audit`).one().n;
      return { count, cmds: log.entries().map((e) => e.cmd) };
    });
    expect(rows).toEqual({ count: 3, cmds: ["c3", "c4", "c5"] });
  });
});

describe("storage cost", () => {
  it("a policy change writes 2 rows; an approve turn 2 plus 1 per command; a skip 3, a run 4", async () => {
    const room = freshRoom();
    const rows = async () => ((await (await api(`/api/rooms/${room}/stats`)).json()) as { rowsWrittenSinceStart: number }).rowsWrittenSinceStart;
    const cost = async (step: () => Promise<unknown>) => {
      const before = await rows();
      await step();
      return (await rows()) - before;
    };
    await send(room, "warm up");
    expect(await cost(() => api(`/api/rooms/${room}/policy`, { method: "PUT", json: { runPolicy: "approve", userId: "U1" } }))).toBe(2);
    let pending: Pending[] = [];
    expect(await cost(async () => (pending = (await send(room, "SAY: two <run>echo a</run> <run>echo b</run>")).body.pending))).toBe(4);
    expect(await cost(() => decide(room, pending[0].id, "run", "U2"))).toBe(4);
    expect(await cost(() => decide(room, pending[1].id, "skip", "U2"))).toBe(3);
    expect(await cost(() => decide(room, pending[1].id, "skip", "U2"))).toBe(0);
    expect(await cost(() => send(room, "no commands under approve"))).toBe(2);
  });
});

describe("bad input on the control routes", () => {
  const room = freshRoom();
  const hostileIds = ["x".repeat(65), "a%20b", "%27%3B%20DROP%20TABLE%20duet_audit%3B--", "%E2%80%8Bid", "..%2F..%2Fetc"];

  it("policy: empty, malformed, wrong values and oversized bodies are 400/413", async () => {
    const cases: [unknown, string][] = [
      [{}, "runPolicy"],
      [{ runPolicy: "approve" }, "userId"],
      [{ runPolicy: "sometimes", userId: "U1" }, "runPolicy"],
      [{ runPolicy: "auto", userId: "   " }, "userId"],
      [{ runPolicy: "auto", userId: "u".repeat(129) }, "userId"],
    ];
    for (const [json, field] of cases) {
      const res = await api(`/api/rooms/${room}/policy`, { method: "PUT", json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(await res.json()).toMatchObject({ error: "invalid request", code: "invalid_request", details: { [field]: [expect.any(String)] } });
    }
    expect((await api(`/api/rooms/${room}/policy`, { method: "PUT", body: "approve" })).status).toBe(400);
    expect((await api(`/api/rooms/${room}/policy`, { method: "PUT", body: "" })).status).toBe(400);
    expect((await api(`/api/rooms/${room}/policy`, { method: "PUT", json: { runPolicy: "auto", userId: "x".repeat(70_000) } })).status).toBe(413);
    expect((await api(`/api/rooms/${room}/policy`, { method: "POST", json: { runPolicy: "auto", userId: "U1" } })).status).toBe(405);
    expect(await (await api(`/api/rooms/${room}/policy`)).json()).toEqual({ runPolicy: "auto", source: "default" });
  });

  it("approvals: bad bodies are 400, hostile ids 400 or 404, never 500", async () => {
    const [p] = await propose(room, ["echo guarded"]);
    for (const json of [{}, { decision: "run" }, { decision: "maybe", userId: "U1" }, { decision: "run", userId: "" }, { decision: ["run"], userId: "U1" }]) {
      const res = await api(`/api/rooms/${room}/approvals/${p.id}`, { method: "POST", json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(await res.json()).toMatchObject({ code: "invalid_request", details: expect.any(Object) });
    }
    expect((await api(`/api/rooms/${room}/approvals/${p.id}`, { method: "POST", body: "{run" })).status).toBe(400);
    expect((await api(`/api/rooms/${room}/approvals/${p.id}`, { method: "POST", json: { decision: "run", userId: "y".repeat(70_000) } })).status).toBe(413);
    for (const id of hostileIds) {
      const res = await api(`/api/rooms/${room}/approvals/${id}`, { method: "POST", json: { decision: "run", userId: "U1" } });
      expect([400, 404], id).toContain(res.status);
      expect(await res.json()).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
    expect((await api(`/api/rooms/${room}/approvals/`, { method: "POST", json: { decision: "run", userId: "U1" } })).status).toBe(404);
    expect((await api(`/api/rooms/${room}/approvals/${p.id}`)).status).toBe(405);
    // None of that decided it.
    expect((await decide(room, p.id, "skip", "U1")).status).toBe(200);
    expect(await barrier(room)).toEqual(["echo barrier"]);
  });

  it("audit, policy and DELETE: bad room ids are 400, a bad resetter is 400", async () => {
    for (const bad of ["a%20b", "x".repeat(201), "..%2F..%2Fetc"]) {
      for (const path of [`/api/rooms/${bad}/audit`, `/api/rooms/${bad}/policy`]) {
        const res = await api(path);
        expect(res.status, path).toBe(400);
        expect(await res.json()).toMatchObject({ details: { roomId: [expect.any(String)] } });
      }
      expect((await api(`/api/rooms/${bad}/approvals/abc`, { method: "POST", json: { decision: "run", userId: "U1" } })).status).toBe(400);
    }
    for (const by of ["", "%20", "u".repeat(129)]) {
      const res = await api(`/api/rooms/${room}?userId=${by}`, { method: "DELETE" });
      expect(res.status, by).toBe(400);
      expect(await res.json()).toMatchObject({ details: { userId: [expect.any(String)] } });
    }
    expect((await api(`/api/rooms/${room}/audit`, { method: "DELETE" })).status).toBe(405);
    expect((await api(`/api/rooms/${room}/audit`, { token: null })).status).toBe(401);
  });
});
