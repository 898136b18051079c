import { describe, expect, it } from "vitest";
import { ok, type Outcome } from "../outcome.ts";
import { Replays } from "./replay.ts";

describe("Replays", () => {
  it("replays a stored answer, marked as replayed", async () => {
    const replays = new Replays();
    expect(await replays.find("message:k", () => ok({ reply: "hi" }))).toEqual(ok({ reply: "hi", replayed: true }));
    expect(await replays.find("message:k", () => null)).toBeNull();
  });

  it("lets a retry join the answer in flight, and forgets it once settled", async () => {
    const replays = new Replays();
    let finish!: (o: Outcome) => void;
    const answer = replays.track("message:k", new Promise<Outcome>((r) => (finish = r)));
    const joined = replays.find("message:k", () => null);
    finish(ok({ reply: "once" }));
    expect(await answer).toEqual(ok({ reply: "once" }));
    expect(await joined).toEqual(ok({ reply: "once", replayed: true }));
    expect(await replays.find("message:k", () => null)).toBeNull();
  });

  it("passes an error answer through unmarked", async () => {
    const replays = new Replays();
    const failed = { status: 502, body: { code: "model_error" } };
    void replays.track("exec:k", new Promise<Outcome>((r) => setTimeout(() => r(failed), 1)));
    expect(await replays.find("exec:k", () => null)).toEqual(failed);
  });
});
