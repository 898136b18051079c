import { describe, expect, it } from "vitest";
import { WorkerClient } from "../client/client.ts";
import { parseDuetCommand } from "../commands/commands.ts";
import { describeUsage } from "../words/settings.ts";
import { audit, decide, helpWithSettings, policy } from "./control.ts";
import { runCommand } from "./flow.ts";
import type { FlowDeps, GuardedAction } from "./types.ts";
import type { Reply } from "./reply.ts";
import type { ChatSurface } from "./surface.ts";

/**
 * The control flows against a surface that records what it shows and the real
 * WorkerClient over a fetch that answers per route as the Worker does.
 */

type Route = (method: string, path: string, body: unknown) => [number, unknown];

function setup(route: Route) {
  const requests: string[] = [];
  const bodies: unknown[] = [];
  const posted: Reply[] = [];
  const privately: Reply[] = [];
  const edits: { id: string; reply: Reply }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input));
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    requests.push(`${init?.method ?? "GET"} ${url.pathname}${url.search}`);
    bodies.push(body);
    const [status, json] = route(init?.method ?? "GET", url.pathname, body);
    return new Response(JSON.stringify(json), { status, headers: { "content-type": "application/json" } });
  };
  const deps: FlowDeps = { worker: new WorkerClient({ baseUrl: "http://worker.test", token: "t", fetch, retries: 0 }), log: () => {} };
  const surface: ChatSurface = {
    post: async (r) => (posted.push(r), { id: "p" }),
    postPrivate: async (r) => (privately.push(r), { id: "e" }),
    edit: async (ref, reply) => (edits.push({ id: ref.id, reply }), true),
    showProgress: () => async () => {},
  };
  return { deps, surface, requests, bodies, posted, privately, edits };
}

const asker = { room: "slack-T1-C1", user: "U1", key: "K1" };
const onlyOps = async (action: GuardedAction) => (action === "approve" ? "members of ops" : null);
const refuseAll = async () => "the admins";

describe("who may", () => {
  it.each([
    ["run ls", "run commands with `/duet run`"],
    ["reset", "reset Duet"],
    ["policy approve", "change the run policy"],
    ["model fake-large", "switch the model here"],
  ])("refuses %j privately, saying who may, and never calls the Worker", async (typed, what) => {
    const t = setup(() => [500, {}]);
    expect(await runCommand(t.deps, t.surface, { ...asker, permit: refuseAll }, parseDuetCommand(typed))).toBe("answered");
    expect(t.requests).toEqual([]);
    expect(t.posted).toEqual([]);
    expect(t.privately).toEqual([{ kind: "refused", text: expect.stringContaining(`Only the admins may ${what}`) }]);
  });

  it("lets anyone ask, see the policy and read the audit", async () => {
    const t = setup((_m, path) => (path.endsWith("/policy") ? [200, { runPolicy: "auto" }] : [200, { entries: [] }]));
    await runCommand(t.deps, t.surface, { ...asker, permit: refuseAll }, parseDuetCommand("policy"));
    await runCommand(t.deps, t.surface, { ...asker, permit: refuseAll }, parseDuetCommand("audit"));
    expect(t.requests).toEqual(["GET /api/rooms/slack-T1-C1/policy", "GET /api/rooms/slack-T1-C1/audit"]);
    expect(t.privately.map((r) => r.kind)).toEqual(["policy", "audit"]);
  });
});

describe("policy", () => {
  it("sets the policy for everyone to see, naming who set it", async () => {
    const t = setup(() => [200, { runPolicy: "approve" }]);
    expect(await policy(t.deps, t.surface, asker, "approve")).toBe("answered");
    expect(t.bodies).toEqual([{ runPolicy: "approve", userId: "U1" }]);
    expect(t.posted).toEqual([{ kind: "policy", runPolicy: "approve", setBy: "U1" }]);
  });

  it("shows the asker where the policy comes from: a thread following its channel", async () => {
    const t = setup(() => [200, { runPolicy: "approve", source: "channel" }]);
    expect(await policy(t.deps, t.surface, asker)).toBe("answered");
    expect(t.privately).toEqual([{ kind: "policy", runPolicy: "approve", source: "channel" }]);
    expect(t.posted).toEqual([]);
  });

  it("tells only the asker when the Worker refused", async () => {
    const t = setup(() => [400, { error: "invalid request", code: "invalid_request", details: { runPolicy: ["Run policy must be auto or approve"] } }]);
    expect(await policy(t.deps, t.surface, asker, "approve")).toBe("failed");
    expect(t.posted).toEqual([]);
    expect(t.privately).toEqual([{ kind: "error", code: "invalid_request", text: expect.stringContaining("Run policy must be auto or approve") }]);
  });
});

describe("audit", () => {
  it("shows the last 20 entries to the asker, counting all", async () => {
    const entries = Array.from({ length: 25 }, (_, i) => ({ at: i, kind: "direct", cmd: `echo ${i}`, requestedBy: "U1", exitCode: 0, durationMs: 1 }));
    const t = setup(() => [200, { entries }]);
    await audit(t.deps, t.surface, asker);
    const shown = t.privately[0] as Extract<Reply, { kind: "audit" }>;
    expect(shown.total).toBe(25);
    expect(shown.entries.map((e) => e.cmd)).toEqual(entries.slice(5).map((e) => e.cmd));
  });
});

describe("decide", () => {
  const approval = { id: "a-1", cmd: "rm -r build", expiresAt: 9, decision: "run", decidedBy: "U2", decidedAt: 5, requestedBy: "U1" };
  const run = { cmd: "rm -r build", exitCode: 0, stdout: "", stderr: "", truncated: false, durationMs: 3 };
  const click = { approvalId: "a-1", decision: "run" as const, message: { id: "M1" } };

  it("runs the command, shows the decision in place, then the output", async () => {
    const t = setup(() => [200, { approval, run }]);
    expect(await decide(t.deps, t.surface, { ...asker, user: "U2" }, click)).toBe("answered");
    expect(t.requests).toEqual(["POST /api/rooms/slack-T1-C1/approvals/a-1"]);
    expect(t.bodies).toEqual([{ decision: "run", userId: "U2" }]);
    expect(t.edits).toEqual([{ id: "M1", reply: { kind: "decided", approval } }]);
    expect(t.posted).toEqual([{ kind: "ran", cmd: "rm -r build", user: "U2", result: { stdout: "", stderr: "", exitCode: 0, success: true, truncated: false, durationMs: 3 } }]);
  });

  it("shows a skip in place and posts nothing else", async () => {
    const t = setup(() => [200, { approval: { ...approval, decision: "skip" } }]);
    await decide(t.deps, t.surface, asker, { ...click, decision: "skip" });
    expect(t.edits.map((e) => e.reply.kind)).toEqual(["decided"]);
    expect(t.posted).toEqual([]);
  });

  it.each([
    [409, "already_decided", /already decided/],
    [410, "approval_expired", /expired; nothing was run/],
    [404, "not_found", /./],
  ])("answers a %i privately and changes nothing", async (status, code, words) => {
    const t = setup(() => [status, { error: "no", code }]);
    expect(await decide(t.deps, t.surface, asker, click)).toBe("failed");
    expect(t.requests).toHaveLength(1);
    expect(t.edits).toEqual([]);
    expect(t.posted).toEqual([]);
    expect(t.privately).toEqual([{ kind: "error", code, text: expect.stringMatching(words) }]);
  });

  it("refuses someone who may not approve, without asking the Worker", async () => {
    const t = setup(() => [200, { approval, run }]);
    await decide(t.deps, t.surface, { ...asker, permit: onlyOps }, click);
    expect(t.requests).toEqual([]);
    expect(t.edits).toEqual([]);
    expect(t.privately).toEqual([{ kind: "refused", text: "Only members of ops may run or skip the commands Duet proposes here; nothing was run." }]);
  });
});

describe("help with the room's settings", () => {
  it("says where the sandbox may connect and the room's policy", async () => {
    const info = { sandbox: { provider: "local", network: "none", allowedHosts: [], deniedHosts: [] } };
    const t = setup((_m, path) => (path === "/api/info" ? [200, info] : [200, { runPolicy: "approve" }]));
    await helpWithSettings(t.deps, t.surface, asker);
    expect(t.privately).toEqual([{ kind: "help", network: expect.stringContaining("no network access"), runPolicy: "approve" }]);
  });

  it("answers a typing mistake with the usage alone, without the Worker", async () => {
    const t = setup(() => [200, {}]);
    await helpWithSettings(t.deps, t.surface, asker, "Unknown command `x`.");
    expect(t.requests).toEqual([]);
    expect(t.privately).toEqual([{ kind: "help", problem: "Unknown command `x`." }]);
  });

  it("still helps when the Worker cannot answer", async () => {
    const t = setup(() => [503, { error: "down" }]);
    expect(await helpWithSettings(t.deps, t.surface, asker)).toBe("answered");
    expect(t.privately).toEqual([{ kind: "help" }]);
  });
});

describe("parsing the control commands", () => {
  it.each([
    ["policy", { kind: "policy" }],
    ["POLICY  Approve ", { kind: "policy", runPolicy: "approve" }],
    ["policy auto", { kind: "policy", runPolicy: "auto" }],
    ["audit", { kind: "audit" }],
  ])("%j", (typed, parsed) => {
    expect(parseDuetCommand(typed)).toEqual(parsed);
  });

  it.each(["policy yolo", "policy auto approve", "policy `rm -rf /`", `policy ${"a".repeat(5000)}`, "policy <!channel>"])("answers %j with the policy's usage", (typed) => {
    const parsed = parseDuetCommand(typed);
    expect(parsed.kind).toBe("help");
    const problem = (parsed as { problem: string }).problem;
    expect(problem).toMatch(/takes `auto`.*or `approve`/);
    expect(problem.length).toBeLessThan(300);
    expect(problem).not.toContain("rm -rf /`");
  });
});

describe("model and usage", () => {
  const usage = {
    days: [
      { date: "2026-12-02", rows: [{ userId: "U1", userName: "Ada <!channel>", model: "m", inputTokens: 1200, outputTokens: 34, turns: 2 }] },
      { date: "2026-12-01", rows: [{ userId: "U2", model: "m", inputTokens: null, outputTokens: null, turns: 1, unreported: 1 }] },
    ],
    budgets: { user: { limit: 5000, used: 1234, left: 3766 } },
    resetsAt: 0,
  };

  it.each([
    ["model", { kind: "model" }],
    ["MODEL  fake-large ", { kind: "model", model: "fake-large" }],
    ["usage", { kind: "usage" }],
  ])("parses %j", (typed, command) => {
    expect(parseDuetCommand(typed)).toEqual(command);
  });

  it("answers a model name with spaces with the usage, never asking the Worker", () => {
    expect(parseDuetCommand("model gpt 4")).toEqual({ kind: "help", problem: expect.stringContaining("`gpt 4` is not a model name") });
  });

  it("switches the model for everyone to see, naming who switched it", async () => {
    const t = setup(() => [200, { model: "fake-large", source: "room", choices: ["fake-model", "fake-large"] }]);
    expect(await runCommand(t.deps, t.surface, asker, parseDuetCommand("model fake-large"))).toBe("answered");
    expect(t.requests).toEqual(["PUT /api/rooms/slack-T1-C1/model"]);
    expect(t.bodies[0]).toEqual({ model: "fake-large", userId: "U1" });
    expect(t.posted).toEqual([{ kind: "model", model: "fake-large", choices: ["fake-model", "fake-large"], setBy: "U1" }]);
  });

  it("shows the asker the usage with what they have left; unknown figures are said as unknown, not zero", async () => {
    const t = setup(() => [200, usage]);
    expect(await runCommand(t.deps, t.surface, asker, parseDuetCommand("usage"))).toBe("answered");
    expect(t.requests).toEqual(["GET /api/rooms/slack-T1-C1/usage?userId=U1"]);
    const shown = describeUsage((t.privately[0] as Extract<Reply, { kind: "usage" }>).usage, { person: (id) => `<@${id}>`, command: (c) => c, label: (n) => n.replace(/[<>]/g, "") });
    expect(shown).toContain("Ada !channel · m · 1,200 in / 34 out · 2 turns");
    expect(shown).toContain("<@U2> · m · tokens unknown (the model reported none) · 1 turn");
    expect(shown).toContain("Your budget: 1,234 of 5,000 tokens used today, 3,766 left (resets at 00:00 UTC).");
    const across = { ...usage, budgets: { user: { ...usage.budgets.user, where: "across this workspace's rooms" } } };
    expect(describeUsage(across, { person: (id) => id, command: (c) => c, label: (n) => n })).toContain(
      "Your budget across this workspace's rooms: 1,234 of 5,000 tokens used today, 3,766 left (resets at 00:00 UTC).",
    );
  });
});
