import { describe, expect, it } from "vitest";
import { deliveryTargetSchema } from "./delivery-target.ts";
import { BOT_PLATFORMS, channelOfThread, isValidRoomId, parentRoomId, PLATFORMS, roomId, sandboxName, workspaceRoomId } from "./room-id.ts";

describe("room ids", () => {
  it("builds channel and thread rooms from platform ids", () => {
    expect(roomId("slack", "T01", "C02")).toBe("slack-T01-C02");
    expect(roomId("slack", "T01", "C02", "1700000000.000100")).toBe("slack-T01-C02-1700000000.000100");
    expect(roomId("discord", "111", "222", "333")).toBe("discord-111-222-333");
    expect(sandboxName("slack-T01-C02")).toBe("sandbox-slack-T01-C02");
  });

  it("neutralises separators and unsafe characters inside a segment", () => {
    expect(roomId("cli", "my-team", "a/b c")).toBe("cli-my_team-a_b_c");
    expect(() => roomId("cli", "", "x")).toThrow(/empty/);
    expect(() => roomId("cli", "w", "x".repeat(300))).toThrow(/too long/);
  });

  it("finds the room a room is recorded under: thread → channel → workspace", () => {
    expect(parentRoomId("slack-T01-C02-1700000000.000100")).toBe("slack-T01-C02");
    expect(parentRoomId("discord-1-2-3")).toBe("discord-1-2");
    expect(parentRoomId("slack-T01-C02")).toBe("slack-T01");
    expect(parentRoomId("discord-1-2")).toBe("discord-1");
    expect(parentRoomId("slack-T01")).toBeNull();
    expect(parentRoomId("cli-local-demo")).toBeNull();
    expect(parentRoomId("room-123")).toBeNull();
    expect(parentRoomId("other-a-b-c")).toBeNull();
    expect(parentRoomId("slack-a--c")).toBeNull();
    expect(workspaceRoomId("slack", "T01")).toBe(parentRoomId(roomId("slack", "T01", "C02")));
    expect(workspaceRoomId("discord", "111")).toBe("discord-111");
  });

  it("names a thread room's channel, and no channel for a channel, workspace or free-form room", () => {
    expect(channelOfThread("slack-T01-C02-1700000000.000100")).toBe("slack-T01-C02");
    expect(channelOfThread("cli-local-demo-t1")).toBe("cli-local-demo");
    for (const notThread of ["slack-T01-C02", "slack-T01", "cli-local-demo", "other-a-b-c", "slack-a--c"]) expect(channelOfThread(notThread)).toBeNull();
  });

  it("validates characters and length", () => {
    expect(isValidRoomId("a.b_c-1")).toBe(true);
    for (const bad of ["", "a b", "a/b", "ä", "x".repeat(201), "a\u200bb"]) expect(isValidRoomId(bad)).toBe(false);
  });

  it("gives each platform with a bot, from its one list, room ids, a workspace room and a delivery feed; the CLI none of the last two", () => {
    for (const p of BOT_PLATFORMS) {
      expect(PLATFORMS).toContain(p);
      expect(parentRoomId(roomId(p, "W1", "C2"))).toBe(workspaceRoomId(p, "W1"));
      expect(deliveryTargetSchema.safeParse({ platform: p, place: { channel: "C2" } }).success).toBe(true);
    }
    expect(parentRoomId(roomId("cli", "me", "chat"))).toBeNull();
    const cli = deliveryTargetSchema.safeParse({ platform: "cli", place: { channel: "C2" } });
    expect(cli.error?.issues[0]?.message).toBe(`Platform must be ${BOT_PLATFORMS.join(" or ")}`);
  });
});
