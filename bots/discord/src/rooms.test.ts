import { describe, expect, it } from "vitest";
import { parentRoomId } from "@duet/shared";
import { channelRoom, roomFor, threadRoom } from "./rooms.ts";

describe("Discord room ids", () => {
  it("maps a text channel and a thread, the thread recorded under its channel", () => {
    expect(channelRoom("111", "222")).toBe("discord-111-222");
    expect(threadRoom("111", "222", "333")).toBe("discord-111-222-333");
    expect(parentRoomId(threadRoom("111", "222", "333"))).toBe(channelRoom("111", "222"));
  });

  it("chooses by place", () => {
    expect(roomFor({ guildId: "1", channelId: "2", isThread: false })).toBe("discord-1-2");
    expect(roomFor({ guildId: "1", channelId: "3", parentId: "2", isThread: true })).toBe("discord-1-2-3");
  });
});
