import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buttonClick, mentionEvent, postEvent, postInteraction, startFakeSlack, type FakeSlack, type SlackMessage } from "../fakes/slack/index.ts";
import { startRoundRobin, type RoundRobin } from "../helpers/round-robin.ts";
import { QUICK_DELIVERY } from "../helpers/quick-delivery.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { startPassThrough, type PassThrough } from "../reliability/pass-through.ts";
import { answerTo, botReplies, modelCallsFor, newChannel, newMessagesIn, readable } from "../slack/harness.ts";
import { buildBots, type BotProc, type Built, runBuilt } from "./harness.ts";
import { slackBotEnv, slackHttp } from "../helpers/bot-env.ts";

/**
 * Two built Slack bots (HTTP mode, two processes) behind a round-robin load
 * balancer, as a deployment runs them: whatever lands on which replica, people
 * see one answer. The Worker is reached through a pass-through that records
 * each request, so a test can wait for a replica to have handled a delivery.
 */

const SECRET = "replicas-signing-secret";

let built: Built;
let stack: Stack;
let slack: FakeSlack;
let worker: PassThrough;
let balancer: RoundRobin;
const replicas: { proc: BotProc; url: string | null }[] = [];

function startReplica(): Promise<{ proc: BotProc; url: string }> {
  const proc = runBuilt(built, "slack", slackBotEnv(slack, worker.url, stack.token, { ...slackHttp(SECRET), SLACK_REPLICAS: "many" }));
  return portOf(proc).then((port) => ({ proc, url: `http://127.0.0.1:${port}` }));
}

/** The port a replica names once it listens (beforeAll has no expect.poll). */
async function portOf(proc: BotProc): Promise<number> {
  for (let i = 0; i < 600; i++) {
    const found = /listens for Slack on port (\d+)/.exec(proc.output());
    if (found) return Number(found[1]);
    if (proc.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`a replica did not start: ${proc.output()}`);
}

beforeAll(async () => {
  built = await buildBots();
  // Answers unconfirmed for half a second are offered in the feed, leased 3 s to the replica that takes or holds one (15 s each in production).
  stack = await startStack({ vars: QUICK_DELIVERY });
  slack = await startFakeSlack();
  worker = await startPassThrough(() => stack.workerUrl);
  replicas.push(...(await Promise.all([startReplica(), startReplica()])));
  balancer = await startRoundRobin(() => replicas.map((r) => r.url ?? "http://127.0.0.1:9"));
}, 120_000);

afterAll(async () => {
  for (const r of replicas) await r.proc.stop();
  await balancer?.close();
  await worker?.close();
  await slack?.close();
  await stack?.stop();
  built?.remove();
});

const events = () => `${balancer.url}/slack/events`;
/** The replica the balancer gave the last request to. */
const lastReplica = () => balancer.sentTo.at(-1)!.replica;
/**
 * Makes the balancer's next request go to `replica`: a signed url_verification
 * (answered by bolt, changing nothing) takes the turn of any replica before it.
 */
async function nextGoesTo(replica: number): Promise<void> {
  while (((balancer.sentTo.at(-1)?.replica ?? -1) + 1) % replicas.length !== replica) {
    await postEvent(events(), { token: "x", challenge: "steer", type: "url_verification" }, { secret: SECRET });
  }
}
const other = (replica: number) => (replica + 1) % replicas.length;
/** The answers of `room` that reads of the Slack delivery feed handed to an outbox, as the Worker answered them. */
const handedOutIn = (room: string) =>
  worker.crossings.filter((c) => c.path === "/api/deliveries/slack").flatMap((c) => (c.answer as { items?: { roomId: string }[] } | undefined)?.items ?? []).filter((i) => i.roomId === room);
/** Asks for an event the room refused because another delivery of it asked first (its claim is its ask). */
const refusedAsksOf = (eventId: string) =>
  worker.crossings.filter((c) => c.path.endsWith("/message") && c.body?.idempotencyKey === eventId && c.status === 409 && (c.answer as { code?: string } | undefined)?.code === "answered_elsewhere");

describe("two Slack replicas behind a load balancer", () => {
  it("a retry that lands on the other replica is answered once, even where Slack refuses the 👀 claim", async () => {
    // Without reactions:write the 👀 cannot mark the message as taken: only the Worker's claim can.
    slack.refuse("reactions.add", "missing_scope");
    try {
      const channel = newChannel();
      const payload = mentionEvent(slack, { channel, text: "SAY: answered-by-one-replica" });
      const ts = String(payload.event.ts);
      expect((await postEvent(events(), payload, { secret: SECRET })).status).toBe(200);
      const first = lastReplica();
      expect((await postEvent(events(), payload, { secret: SECRET, retryNum: 1, retryReason: "http_timeout" })).status).toBe(200);
      expect(lastReplica()).not.toBe(first);
      // Barrier: the room refused one replica's ask for this event, so the retry has had its turn.
      await expect.poll(() => refusedAsksOf(payload.event_id).length, { timeout: 20_000 }).toBe(1);
      const answer = await slack.waitFor(() => botReplies(slack, channel, ts).find((m) => readable(m).includes("answered-by-one-replica") && !m.blocks?.some((b) => JSON.stringify(b).includes("duet_stop"))), "the answer");
      expect(readable(answer)).toContain("answered-by-one-replica");
      // A later mention in the same thread, through the balancer, is answered after anything the retry could have posted.
      const later = mentionEvent(slack, { channel, threadTs: ts, text: "SAY: later-in-thread" });
      await postEvent(events(), later, { secret: SECRET });
      await slack.waitFor(() => botReplies(slack, channel, ts).some((m) => readable(m).includes("later-in-thread") && !JSON.stringify(m.blocks ?? []).includes("duet_stop")), "the later answer");
      expect(botReplies(slack, channel, ts).filter((m) => readable(m).includes("answered-by-one-replica"))).toHaveLength(1);
      expect(modelCallsFor(stack, "answered-by-one-replica")).toBe(1);
    } finally {
      slack.refuse("reactions.add", null);
    }
  });

  it("Run on a proposal clicked through the replica that did not post it runs the command once and marks the proposal", async () => {
    const channel = newChannel();
    const room = `slack-${slack.id.teamId}-${channel}`;
    await stack.client.setPolicy(room, { runPolicy: "approve", userId: "U0ALICE" });
    const payload = mentionEvent(slack, { channel, text: "SAY: Proposing. <run>echo approved-elsewhere</run>" });
    const ts = String(payload.event.ts);
    await postEvent(events(), payload, { secret: SECRET });
    const poster = lastReplica();
    const [proposal] = (await answerTo(slack, { channel, ts, threadTs: ts })).map((m) => structuredClone(m) as SlackMessage);
    const run = (proposal.blocks ?? []).filter((b) => b.type === "actions").flatMap((b) => b.elements as { action_id: string; value: string }[]).find((e) => e.action_id === "duet_approval_run")!;
    expect(run).toBeDefined();

    const clicked = buttonClick(slack, { channel, messageTs: proposal.ts, actionId: run.action_id, value: run.value, user: "U0ALICE" });
    expect((await postInteraction(events(), clicked, { secret: SECRET })).status).toBe(200);
    expect(lastReplica()).not.toBe(poster);
    await slack.waitFor(() => readable(slack.ws.find(channel, proposal.ts)!).includes("ran `echo approved-elsewhere`"), "the proposal marked as run");
    const output = await slack.waitFor(() => slack.ws.thread(channel, ts).find((m) => m.ts !== proposal.ts && readable(m).includes("approved-elsewhere\n")), "the command's output in the thread");
    expect(readable(output)).toContain("approved-elsewhere");
    expect(stack.executor!.calls.filter((c) => c.command === "echo approved-elsewhere")).toHaveLength(1);
  });

  it("an event, its retry, a Run click and a Stop click, the last three on the replica that did not start the turn: one answer, one run, one stop", async () => {
    const channel = newChannel();
    const room = `slack-${slack.id.teamId}-${channel}`;
    await stack.client.setPolicy(room, { runPolicy: "approve", userId: "U0ALICE" });
    const marker = `stopped-elsewhere-${Date.now()}`;
    const cmd = `sleep 30 && echo ${marker}`;
    const payload = mentionEvent(slack, { channel, text: `SAY: Proposing a long one. <run>${cmd}</run>` });
    const ts = String(payload.event.ts);
    await postEvent(events(), payload, { secret: SECRET });
    const starter = lastReplica();
    await postEvent(events(), payload, { secret: SECRET, retryNum: 1, retryReason: "http_timeout" });
    expect(lastReplica()).toBe(other(starter));
    // Barrier: the room refused one replica's ask for this event, so the retry has had its turn.
    await expect.poll(() => refusedAsksOf(payload.event_id).length, { timeout: 20_000 }).toBe(1);
    const [proposal] = (await answerTo(slack, { channel, ts, threadTs: ts })).map((m) => structuredClone(m) as SlackMessage);
    const run = (proposal.blocks ?? []).filter((b) => b.type === "actions").flatMap((b) => b.elements as { action_id: string; value: string }[]).find((e) => e.action_id === "duet_approval_run")!;

    await nextGoesTo(other(starter));
    await postInteraction(events(), buttonClick(slack, { channel, messageTs: proposal.ts, actionId: run.action_id, value: run.value, user: "U0ALICE" }), { secret: SECRET });
    expect(lastReplica()).toBe(other(starter));
    await expect.poll(() => stack.executor!.calls.filter((c) => c.command === cmd).length, { timeout: 20_000 }).toBe(1);

    await nextGoesTo(other(starter));
    await postInteraction(events(), buttonClick(slack, { channel, messageTs: proposal.ts, actionId: "duet_stop", value: room, user: "U0BOB" }), { secret: SECRET });
    expect(lastReplica()).toBe(other(starter));
    const result = await slack.waitFor(() => slack.ws.thread(channel, ts).find((m) => m.ts !== proposal.ts && readable(m).includes("sleep 30")), "the stopped command's result in the thread", 30_000);
    // Killed in its sleep: stopped by the person who clicked, its echo never ran.
    expect(readable(result)).toContain("stopped by U0BOB");
    expect(readable(result)).not.toMatch(new RegExp(`^${marker}$`, "m"));

    // Barrier: a later mention in the thread is answered after anything the clicks or the retry could have posted.
    const later = mentionEvent(slack, { channel, threadTs: ts, text: "SAY: after-the-stop" });
    await postEvent(events(), later, { secret: SECRET });
    await slack.waitFor(() => botReplies(slack, channel, ts).some((m) => readable(m).includes("after-the-stop") && !JSON.stringify(m.blocks ?? []).includes("duet_stop")), "the later answer");
    expect(botReplies(slack, channel, ts).filter((m) => readable(m).includes("Proposing a long one"))).toHaveLength(1);
    expect(modelCallsFor(stack, "Proposing a long one")).toBe(1);
    expect(stack.executor!.calls.filter((c) => c.command === cmd)).toHaveLength(1);
    expect(worker.crossings.filter((c) => c.path === `/api/rooms/${room}/stop` && c.status === 200)).toHaveLength(1);
    expect(slack.ws.ephemeral.filter((e) => e.channel === channel && /Stopping/.test(e.text))).toHaveLength(1);
  });

  it("mentions in one channel landing on both replicas: its new messages reach Slack a second apart, each answer once", async () => {
    const channel = newChannel();
    const asked: { channel: string; ts: string; threadTs: string }[] = [];
    const took: number[] = [];
    for (let i = 0; i < 6; i++) {
      const payload = mentionEvent(slack, { channel, text: `SAY: paced-across-replicas-${i}`, user: `U0PACE${i}` });
      expect((await postEvent(events(), payload, { secret: SECRET })).status).toBe(200);
      took.push(lastReplica());
      asked.push({ channel, ts: String(payload.event.ts), threadTs: String(payload.event.ts) });
    }
    expect(new Set(took).size).toBe(2);
    for (const [i, m] of asked.entries()) {
      const replies = await answerTo(slack, m);
      expect(replies).toHaveLength(1);
      expect(readable(replies[0])).toContain(`paced-across-replicas-${i}`);
    }
    // Slack's own record of each new message's arrival: one a second across both replicas, not one a second each.
    const created = newMessagesIn(slack, channel);
    expect(created).toHaveLength(6);
    for (const [i, c] of created.slice(1).entries()) expect(c.at - created[i].at).toBeGreaterThanOrEqual(950);
    // The last answers waited past the 500 ms grace for their turn: their replicas held them, so no outbox (which
    // would post a second copy) was ever handed one. Every answer is confirmed now, so no later read can be.
    const room = `slack-${slack.id.teamId}-${channel}`;
    expect(handedOutIn(room)).toEqual([]);
  });

  it("an answer held past the delivery grace and past the Worker's lease by the replica still posting it is handed to no outbox, and posted once", async () => {
    const channel = newChannel();
    const room = `slack-${slack.id.teamId}-${channel}`;
    // Slack holds the replica's first post of the answer: the answer waits, unconfirmed, past the 500 ms grace and
    // past several of the Worker's 3 s leases, kept from the outbox only by the replica renewing its hold.
    const held = ["chat.startStream", "chat.postMessage"].map((m) => slack.hold(m));
    try {
      await nextGoesTo(0);
      const payload = mentionEvent(slack, { channel, text: "SAY: held-by-its-replica" });
      const ts = String(payload.event.ts);
      await postEvent(events(), payload, { secret: SECRET });
      await Promise.race(held.map((h) => h.arrived));
      await expect.poll(async () => (await stack.client.history(room)).messages.length, { timeout: 20_000 }).toBe(2);
      const since = worker.crossings.length;
      const feedReads = () => worker.crossings.slice(since).filter((c) => c.method === "GET" && c.path === "/api/deliveries/slack" && c.status === 200);
      const holds = () => worker.crossings.slice(since).filter((c) => c.path === `/api/rooms/${room}/deliveries/hold` && (c.answer as { held?: boolean } | undefined)?.held === true);
      const handedOut = () => handedOutIn(room);
      // Barrier: the replica has renewed its hold 7 times since the answer was stored (at a third of the 3 s lease,
      // two whole leases; a replica renewing at a third of 15 s leaves the lease lapsed 2 s in every 5), and six reads
      // of the feed begun meanwhile have come back (or one handed the answer out). While the room is listed (from the
      // grace's end) a read finds its answer leased and comes back at once, and each replica reads again a second later.
      await expect.poll(() => handedOut().length > 0 || (holds().length >= 7 && feedReads().length >= 6), { timeout: 40_000 }).toBe(true);
      expect(handedOut()).toEqual([]);
      for (const h of held) h.release();
      const replies = await answerTo(slack, { channel, ts, threadTs: ts });
      expect(replies).toHaveLength(1);
      expect(readable(replies[0])).toContain("held-by-its-replica");
      expect(newMessagesIn(slack, channel)).toHaveLength(1);
    } finally {
      for (const h of held) h.release();
    }
  });

  it("an answer the feed handed to one replica, held by Slack past the Worker's lease, is handed to no other, and posted once", async () => {
    const channel = newChannel();
    const room = `slack-${slack.id.teamId}-${channel}`;
    const marker = `handed-out-${Date.now()}`;
    // The person's message the answer belongs to (its bot died before it could answer): the room's outbox delivers it.
    const threadTs = String(mentionEvent(slack, { channel, text: "SAY: something" }).event.ts);
    const held = ["chat.startStream", "chat.postMessage"].map((m) => slack.hold(m));
    try {
      const since = worker.crossings.length;
      await stack.client.message(room, { text: `SAY: ${marker}`, idempotencyKey: `Ev-${marker}`, deliver: { platform: "slack", place: { channel, threadTs, ts: threadTs } } });
      // One replica took it from the feed, and Slack holds its post.
      await Promise.race(held.map((h) => h.arrived));
      const feedReads = () => worker.crossings.slice(since).filter((c) => c.method === "GET" && c.path === "/api/deliveries/slack" && c.status === 200);
      const holds = () => worker.crossings.slice(since).filter((c) => c.path === `/api/rooms/${room}/deliveries/hold` && (c.answer as { held?: boolean } | undefined)?.held === true);
      // Barrier: the replica posting it renewed its lease 7 times (two whole 3 s leases) while six reads of the feed came
      // back, or the feed handed the answer out a second time.
      await expect.poll(() => handedOutIn(room).length > 1 || (holds().length >= 7 && feedReads().length >= 6), { timeout: 40_000 }).toBe(true);
      expect(handedOutIn(room)).toHaveLength(1);
      for (const h of held) h.release();
      const replies = await answerTo(slack, { channel, ts: threadTs, threadTs });
      expect(replies).toHaveLength(1);
      expect(readable(replies[0])).toContain(marker);
      expect(newMessagesIn(slack, channel)).toHaveLength(1);
    } finally {
      for (const h of held) h.release();
    }
  });

  it("an answer whose replica is killed mid-turn is delivered once by the other replica", async () => {
    const channel = newChannel();
    const hold = `replica-killed-${Date.now()}`;
    const marker = `survived-${Date.now()}`;
    const payload = mentionEvent(slack, { channel, text: `HOLD:${hold} CHUNK:10 SAY: Looking now <run>echo ${marker}</run>` });
    const ts = String(payload.event.ts);
    expect((await postEvent(events(), payload, { secret: SECRET })).status).toBe(200);
    const victim = lastReplica();
    // The model has begun answering and holds the rest: the replica that took the mention dies now.
    await expect.poll(() => stack.model.calls.filter((c) => JSON.stringify(c).includes(marker)).length, { timeout: 20_000 }).toBe(1);
    replicas[victim].proc.child.kill("SIGKILL");
    await replicas[victim].proc.exited;
    replicas[victim].url = null;
    await fetch(`${stack.model.url}/_release/${hold}`, { method: "POST" });

    const answer = await slack.waitFor(() => botReplies(slack, channel, ts).find((m) => readable(m).includes(`${marker}\n`)), "the answer delivered by the survivor", 30_000);
    expect(readable(answer)).toContain("Looking now");
    // Barrier: the survivor answers a later mention through the balancer, after confirming the delivery.
    const later = mentionEvent(slack, { channel, text: "SAY: survivor-still-answers" });
    await postEvent(events(), later, { secret: SECRET });
    await answerTo(slack, { channel, ts: String(later.event.ts), threadTs: String(later.event.ts) });
    expect(botReplies(slack, channel, ts).filter((m) => readable(m).includes(marker))).toHaveLength(1);
    expect(stack.executor!.calls.filter((c) => c.command === `echo ${marker}`)).toHaveLength(1);
  });
});
