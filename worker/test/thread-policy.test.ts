import { describe, expect, it } from "vitest";
import { audit, barrier } from "./control-helpers.ts";
import { api, execCalls, freshRoom, killRoom, send } from "./helpers.ts";

/** A Slack workspace and channel room no other test uses, and thread rooms under it. */
function channelAndThread() {
  const workspace = `slack-${freshRoom("T").replace(/-/g, "")}`;
  const channel = `${workspace}-C1`;
  return { workspace, channel, thread: (ts: string) => `${channel}-${ts}` };
}

async function setPolicy(room: string, runPolicy: "auto" | "approve", userId = "U-admin") {
  const res = await api(`/api/rooms/${room}/policy`, { method: "PUT", json: { runPolicy, userId } });
  return { status: res.status, body: (await res.json()) as any };
}

async function policyOf(room: string) {
  return (await (await api(`/api/rooms/${room}/policy`)).json()) as { runPolicy: string; source: string };
}

/** A turn whose model proposes `cmd`: what ran and what waits. */
async function turnRunning(room: string, cmd: string) {
  const turn = await send(room, `SAY: trying <run>${cmd}</run>`, { userId: "U-asker" });
  expect(turn.status).toBe(200);
  return { ran: turn.body.runs.map((r: { cmd: string }) => r.cmd), waiting: (turn.body.pending ?? []).map((p: { cmd: string }) => p.cmd) };
}

describe("a thread room's run policy", () => {
  it("a new thread in a channel under approve runs nothing and says the policy comes from its channel", async () => {
    const { channel, thread } = channelAndThread();
    expect((await setPolicy(channel, "approve")).status).toBe(200);
    const t = thread("1700000000.000100");
    expect(await policyOf(t)).toEqual({ runPolicy: "approve", source: "channel" });
    expect(await turnRunning(t, "echo from-thread")).toEqual({ ran: [], waiting: ["echo from-thread"] });
    expect(await barrier(t)).toEqual(["echo barrier"]);
    // A thread whose first contact is a turn (no policy asked before) follows it too.
    const other = thread("1700000000.000200");
    expect(await turnRunning(other, "echo first-turn")).toEqual({ ran: [], waiting: ["echo first-turn"] });
    expect(await execCalls(`sandbox-${other}`)).toEqual([]);
  });

  it("a change of the channel's policy reaches its existing threads, across a restart of the thread", async () => {
    const { channel, thread } = channelAndThread();
    const t = thread("1700000000.000300");
    expect(await turnRunning(t, "echo while-auto")).toEqual({ ran: ["echo while-auto"], waiting: [] });
    expect(await policyOf(t)).toEqual({ runPolicy: "auto", source: "default" });

    expect((await setPolicy(channel, "approve")).body).toEqual({ runPolicy: "approve", source: "room" });
    expect(await policyOf(t)).toEqual({ runPolicy: "approve", source: "channel" });
    await killRoom(t);
    expect(await turnRunning(t, "echo after-approve")).toEqual({ ran: [], waiting: ["echo after-approve"] });

    await setPolicy(channel, "auto");
    expect(await turnRunning(t, "echo back-to-auto")).toEqual({ ran: ["echo back-to-auto"], waiting: [] });
    expect(await barrier(t)).toEqual(["echo while-auto", "echo back-to-auto", "echo barrier"]);
    // The change is the channel's: audited there, not in each thread.
    expect((await audit(channel)).map((e) => e.kind)).toEqual(["policy", "policy"]);
    expect((await audit(t)).map((e) => e.kind)).toEqual(["auto", "auto", "direct"]);
  });

  it("a policy set on the thread itself wins over its channel's, for that thread only", async () => {
    const { channel, thread } = channelAndThread();
    const own = thread("1700000000.000400");
    const follower = thread("1700000000.000500");
    await turnRunning(follower, "echo registered");
    expect((await setPolicy(own, "auto", "U-thread-admin")).status).toBe(200);
    await setPolicy(channel, "approve");
    expect(await policyOf(own)).toEqual({ runPolicy: "auto", source: "room" });
    expect(await turnRunning(own, "echo own-policy")).toEqual({ ran: ["echo own-policy"], waiting: [] });
    expect(await turnRunning(follower, "echo channel-policy")).toEqual({ ran: [], waiting: ["echo channel-policy"] });
    // The thread's own approve also holds while its channel runs everything.
    await setPolicy(channel, "auto");
    await setPolicy(own, "approve", "U-thread-admin");
    expect(await turnRunning(own, "echo held")).toEqual({ ran: [], waiting: ["echo held"] });
  });

  it("a channel follows its own policy, never its workspace room's", async () => {
    const { workspace, channel } = channelAndThread();
    await setPolicy(workspace, "approve");
    // The channel's first turn registers it with its workspace room, which answers its policy.
    expect(await turnRunning(channel, "echo first")).toEqual({ ran: ["echo first"], waiting: [] });
    expect(await policyOf(channel)).toEqual({ runPolicy: "auto", source: "default" });
    expect(await turnRunning(channel, "echo still-auto")).toEqual({ ran: ["echo still-auto"], waiting: [] });
  });

  it("a thread's turn under its channel's policy writes the rows any turn writes, and none in the channel", async () => {
    const { channel, thread } = channelAndThread();
    const t = thread("1700000000.000600");
    await setPolicy(channel, "approve");
    await send(t, "first");
    const rows = async (room: string) => ((await (await api(`/api/rooms/${room}/stats`)).json()) as { rowsWrittenSinceStart: number }).rowsWrittenSinceStart;
    const [threadBefore, channelBefore] = [await rows(t), await rows(channel)];
    await send(t, "second, no commands");
    expect((await rows(t)) - threadBefore).toBe(2);
    expect((await rows(channel)) - channelBefore).toBe(0);
  });
});
