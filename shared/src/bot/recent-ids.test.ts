import { describe, expect, it } from "vitest";
import { RecentIds } from "./recent-ids.ts";

describe("RecentIds", () => {
  it("lets an id through once within the TTL", () => {
    let now = 0;
    const ids = new RecentIds(1000, 100, () => now);
    expect(ids.first("Ev1")).toBe(true);
    expect(ids.first("Ev1")).toBe(false);
    now = 999;
    expect(ids.first("Ev1")).toBe(false);
    now = 1000;
    expect(ids.first("Ev1")).toBe(true);
  });

  it("forgets the oldest ids beyond its bound", () => {
    const ids = new RecentIds(60_000, 3, () => 0);
    for (const id of ["a", "b", "c", "d"]) ids.first(id);
    expect(ids.size).toBe(3);
    expect(ids.first("a")).toBe(true);
    expect(ids.first("d")).toBe(false);
  });

  it("counts a forgotten id as new again", () => {
    const ids = new RecentIds();
    expect(ids.first("Ev1")).toBe(true);
    expect(ids.first("Ev1")).toBe(false);
    ids.forget("Ev1");
    expect(ids.first("Ev1")).toBe(true);
    expect(ids.first("Ev1")).toBe(false);
  });
});
