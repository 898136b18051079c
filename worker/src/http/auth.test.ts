import { describe, expect, it } from "vitest";
import { sameToken } from "./auth.ts";

describe("sameToken", () => {
  it("accepts only the token itself: not a prefix, an extension, another case or the empty string", () => {
    const token = "test-token-0123456789";
    expect(sameToken(token, token)).toBe(true);
    for (const given of ["test-token-012345678", `${token}0`, "TEST-TOKEN-0123456789", "", "test-token-0123456780"]) {
      expect(sameToken(given, token), given).toBe(false);
    }
  });
});
