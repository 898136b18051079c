import { describe, expect, it } from "vitest";
import { containerId } from "./container-id.ts";

const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

describe("containerId", () => {
  it("keeps sandbox-<roomId> when it already is a lower-case DNS label", async () => {
    expect(await containerId("demo")).toBe("sandbox-demo");
    expect(await containerId("cli-test-1")).toBe("sandbox-cli-test-1");
  });

  it("gives every other room a DNS label of at most 63 characters", async () => {
    const rooms = [
      "discord-123456789012345678-123456789012345678-123456789012345678",
      "slack-T0ABCDEF1-C0ABCDEF1-1700000000.123456",
      "Demo",
      "x".repeat(200),
      "a_b.c",
      "trailing-",
      "...",
    ];
    for (const room of rooms) {
      const id = await containerId(room);
      expect(id, room).toMatch(DNS_LABEL);
      expect(id.length, room).toBeLessThanOrEqual(63);
      expect(id.startsWith("sandbox-"), room).toBe(true);
    }
    expect(await containerId("slack-T0ABCDEF1-C0ABCDEF1-1700000000.123456")).toMatch(/^sandbox-slack-t0abcdef1-c0ab-[0-9a-f]{24}$/);
  });

  it("never gives two rooms the same sandbox", async () => {
    const rooms = ["Demo", "demo", "DEMO", "a.b", "a_b", "a-b", "x".repeat(200), `${"x".repeat(199)}y`];
    const ids = await Promise.all(rooms.map(containerId));
    expect(new Set(ids).size).toBe(rooms.length);
  });
});
