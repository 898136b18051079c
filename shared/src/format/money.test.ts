import { describe, expect, it } from "vitest";
import { dollars } from "./money.ts";

describe("dollars", () => {
  it("shows cents from a dollar up and two significant digits below, never $0.00 for a cost", () => {
    expect(dollars(12.3)).toBe("$12.30");
    expect(dollars(1234.5)).toBe("$1,234.50");
    expect(dollars(0)).toBe("$0.00");
    expect(dollars(0.5)).toBe("$0.50");
    expect(dollars(0.0123)).toBe("$0.012");
    expect(dollars(0.0042)).toBe("$0.0042");
    expect(dollars(0.000045)).toBe("$0.000045");
    expect(dollars(1e-9)).toBe("under $0.000001");
  });
});
