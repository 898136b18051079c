import { describe, expect, it } from "vitest";
import { describeModel, loadDevConfig } from "./config.ts";

const everyMainExists = () => true;

describe("loadDevConfig", () => {
  it("defaults to ports 8787/8788, the openai provider without a model, and no bots", () => {
    const c = loadDevConfig({}, "/repo", everyMainExists);
    expect(c.workerPort).toBe(8787);
    expect(c.sandboxPort).toBe(8788);
    expect(c.model).toEqual({ provider: "openai", name: undefined, baseUrl: undefined });
    expect(c.bots).toEqual([
      { name: "slack", entry: "bots/slack/src/main.ts", skip: "SLACK_BOT_TOKEN is not set" },
      { name: "discord", entry: "bots/discord/src/main.ts", skip: "DISCORD_TOKEN is not set" },
    ]);
  });

  it("starts Slack with a bot token plus an app token or a signing secret", () => {
    const slack = (env: Record<string, string>) => loadDevConfig(env, "/repo", everyMainExists).bots[0];
    expect(slack({ SLACK_BOT_TOKEN: "xoxb-1" }).skip).toMatch(/SLACK_APP_TOKEN \(Socket Mode\) or SLACK_SIGNING_SECRET/);
    expect(slack({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1" }).skip).toBeUndefined();
    expect(slack({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s" }).skip).toBeUndefined();
    expect(slack({ SLACK_APP_TOKEN: "xapp-1" }).skip).toBe("SLACK_BOT_TOKEN is not set");
  });

  it("skips a bot whose main.ts is not there yet, saying so", () => {
    const c = loadDevConfig({ DISCORD_TOKEN: "d" }, "/repo", (p) => !p.includes("discord"));
    expect(c.bots[1]).toEqual({ name: "discord", entry: "bots/discord/src/main.ts", skip: "bots/discord/src/main.ts does not exist yet" });
  });

  it("takes ports from DUET_WORKER_PORT and SANDBOX_PORT", () => {
    const c = loadDevConfig({ DUET_WORKER_PORT: "9001", SANDBOX_PORT: "9002" }, "/repo", everyMainExists);
    expect([c.workerPort, c.sandboxPort]).toEqual([9001, 9002]);
  });

  it("stops with one line naming a malformed variable", () => {
    expect(() => loadDevConfig({ DUET_WORKER_PORT: "80a" }, "/repo")).toThrow("pnpm dev: DUET_WORKER_PORT must be a port number from 1 to 65535");
    expect(() => loadDevConfig({ DUET_WORKER_PORT: "0" }, "/repo")).toThrow(/DUET_WORKER_PORT must be a port number/);
    expect(() => loadDevConfig({ SANDBOX_PORT: "70000" }, "/repo")).toThrow(/SANDBOX_PORT must be a port number from 0 to 65535/);
    expect(() => loadDevConfig({ MODEL_PROVIDER: "anthropic" }, "/repo")).toThrow(/MODEL_PROVIDER must be workers-ai or openai/);
    expect(() => loadDevConfig({ OPENAI_BASE_URL: "localhost:11434" }, "/repo")).toThrow(/OPENAI_BASE_URL must be an http\(s\) URL/);
    expect(() => loadDevConfig({ DUET_ROOM_DAILY_TOKENS: "lots" }, "/repo")).toThrow("pnpm dev: DUET_ROOM_DAILY_TOKENS must be an integer from 1 to 1000000000000");
    expect(() => loadDevConfig({ DUET_MODELS: "a=openai:x,a=openai:y" }, "/repo")).toThrow('pnpm dev: DUET_MODELS names "a" twice; each name must be different');
  });
});

describe("describeModel", () => {
  it("names a configured OpenAI-compatible model", () => {
    expect(describeModel({ provider: "openai", name: "llama3.1", baseUrl: "http://127.0.0.1:11434/v1" })).toEqual([
      "llama3.1 at http://127.0.0.1:11434/v1 (OpenAI-compatible)",
    ]);
  });

  it("without a model, says direct runs work and how to set one", () => {
    const text = describeModel({ provider: "openai" }).join("\n");
    expect(text).toContain("none configured (MODEL_PROVIDER=openai needs OPENAI_BASE_URL)");
    expect(text).toContain("`npm run -s duet -- run ROOM CMD` works without a model");
    expect(text).toContain("MODEL_PROVIDER=openai OPENAI_BASE_URL=http://127.0.0.1:11434/v1 MODEL=llama3.1 npm run dev");
    expect(text).toContain("npx wrangler deploy --env production");
    expect(describeModel({ provider: "workers-ai" })[0]).toMatch(/Workers AI .* only runs when deployed/);
  });
});
