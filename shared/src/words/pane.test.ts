import { describe, expect, it } from "vitest";
import { PANE_WORDS } from "./pane.ts";

describe("the agent pane's words", () => {
  it("titles a conversation with its first ask on one line, cut on a word past 60 characters", () => {
    expect(PANE_WORDS.title("  why does\n the build   fail? ")).toBe("why does the build fail?");
    const long = PANE_WORDS.title("please look at the failing integration tests in the payments service and tell me why");
    expect(long).toBe("please look at the failing integration tests in the…");
    expect(long.length).toBeLessThanOrEqual(60);
    expect(PANE_WORDS.title("x".repeat(200))).toBe(`${"x".repeat(59)}…`);
  });

  it("names the command running on one line, a long one cut", () => {
    expect(PANE_WORDS.running("npm   test\n-- --watch=false")).toBe("is running npm test -- --watch=false");
    expect(PANE_WORDS.running("y".repeat(300))).toBe(`is running ${"y".repeat(79)}…`);
  });
});
