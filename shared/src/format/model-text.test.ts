import { describe, expect, it } from "vitest";
import { cleanModelText } from "./model-text.ts";

describe("cleanModelText", () => {
  it("names the host a link really goes to beside its label, and leaves code alone", () => {
    expect(cleanModelText("[Click here](https://evil.example/login) to verify. `[a](https://x.io)`\n```\n[b](https://y.io)\n```")).toBe(
      "[Click here (evil.example)](https://evil.example/login) to verify. `[a](https://x.io)`\n```\n[b](https://y.io)\n```",
    );
    // A label that already shows the host stays as it is; one that names another host does not hide the real one.
    expect(cleanModelText("[https://x.io/a](https://x.io/a)")).toBe("[https://x.io/a](https://x.io/a)");
    expect(cleanModelText("[slack.com](https://slack.com.evil.example/)")).toBe("[slack.com (slack.com.evil.example)](https://slack.com.evil.example/)");
  });

  it("turns either platform's mention syntax into plain words, outside code only", () => {
    expect(cleanModelText("hi <@U123> <@!42> <@&77> <#C9|general> <!channel> <!subteam^S1|@devs> `<@U1>`")).toBe("hi @U123 @42 @&77 #general @channel @devs `<@U1>`");
  });

  it("drops invisible and control characters", () => {
    expect(cleanModelText("ev\u200berything\u202e fine\u0007")).toBe("everything fine");
  });
});
