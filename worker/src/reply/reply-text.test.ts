import { describe, expect, it } from "vitest";
import { buildReply } from "./reply-text.ts";

describe("buildReply", () => {
  it("lists each command waiting for approval, and counts them against the per-reply limit", () => {
    expect(buildReply("Cleaning up.", [], ["rm c"], ["rm a", "rm b"])).toBe(
      "Cleaning up.\n\nWaiting for approval: rm a\n\nWaiting for approval: rm b\n\nNot run (limit of 2 commands per reply): `rm c`",
    );
  });
});
