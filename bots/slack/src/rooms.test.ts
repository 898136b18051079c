import { parentRoomId } from "@duet/shared";
import { describe, expect, it } from "vitest";
import { channelRoom, mentionRoom, replyThread } from "./rooms.ts";

const top = { teamId: "T1", channel: "C1", ts: "1700000000.000100" };
const inThread = { ...top, ts: "1700000001.000200", threadTs: "1700000000.000100" };

describe("rooms", () => {
  it("maps a channel to slack-<team>-<channel>", () => {
    expect(channelRoom("T1", "C1")).toBe("slack-T1-C1");
  });

  it("puts every mention of a channel in the channel room by default", () => {
    expect(mentionRoom(top, "channel")).toBe("slack-T1-C1");
    expect(mentionRoom(inThread, "channel")).toBe("slack-T1-C1");
  });

  it("gives each thread its own room under the thread scope, recorded under the channel room", () => {
    const room = mentionRoom(inThread, "thread");
    expect(room).toBe("slack-T1-C1-1700000000.000100");
    expect(parentRoomId(room)).toBe("slack-T1-C1");
    // A top-level mention starts a thread under itself, and that is its room.
    expect(mentionRoom(top, "thread")).toBe("slack-T1-C1-1700000000.000100");
  });

  it("replies in the mention's thread, or starts one under a top-level mention", () => {
    expect(replyThread(top)).toBe(top.ts);
    expect(replyThread(inThread)).toBe(inThread.threadTs);
  });
});
