import { describe, expect, it } from "vitest";
import { freshRoom, modelCallsWith, send } from "./helpers.ts";

describe("the request the model gets", () => {
  it("carries the generation cap and temperature (defaults 1024 and 0.2)", async () => {
    const room = freshRoom();
    const marker = `settings-${room}`;
    expect((await send(room, `SAY: ok ${marker}`)).status).toBe(200);
    const [call] = await modelCallsWith(marker);
    expect(call.max_tokens).toBe(1024);
    expect(call.temperature).toBe(0.2);
  });
});
