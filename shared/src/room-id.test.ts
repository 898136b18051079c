import { describe, expect, it } from "vitest";
import { isValidRoomId, parentRoomId, roomId, sandboxName } from "./room-id.ts";

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

  it("finds the channel room of a thread room, and nothing for other ids", () => {
    expect(parentRoomId("slack-T01-C02-1700000000.000100")).toBe("slack-T01-C02");
    expect(parentRoomId("discord-1-2-3")).toBe("discord-1-2");
    expect(parentRoomId("slack-T01-C02")).toBeNull();
    expect(parentRoomId("room-123")).toBeNull();
    expect(parentRoomId("other-a-b-c")).toBeNull();
    expect(parentRoomId("slack-a--c")).toBeNull();
  });

  it("validates characters and length", () => {
    expect(isValidRoomId("a.b_c-1")).toBe(true);
    for (const bad of ["", "a b", "a/b", "ä", "x".repeat(201), "a\u200bb"]) expect(isValidRoomId(bad)).toBe(false);
  });
});
