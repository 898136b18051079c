import { describe, expect, it } from "vitest";
import { PANE_WORDS } from "@duet/shared";
import { ConfigError, loadConfig } from "./config.ts";

const base = { SLACK_BOT_TOKEN: "xoxb-1-2-abc", DUET_API_TOKEN: "secret-token", SLACK_SIGNING_SECRET: "shh" };

function error(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("uses HTTP mode with defaults when no app token is set", () => {
    expect(loadConfig(base)).toEqual({
      access: { run: null, approve: null, policy: null, reset: null },
      botToken: "xoxb-1-2-abc",
      signingSecret: "shh",
      appToken: undefined,
      apiUrl: undefined,
      port: 3000,
      workerUrl: "http://127.0.0.1:8787",
      apiToken: "secret-token",
      roomScope: "channel",
      mode: "http",
      streaming: true,
      approveOwn: true,
      fileMaxBytes: 25 * 1024 * 1024,
      fileOrigins: [],
      replicas: "one",
      suggestedPrompts: PANE_WORDS.defaultPrompts,
    });
    expect(loadConfig({ ...base, DUET_STREAMING: "off" }).streaming).toBe(false);
    expect(loadConfig({ ...base, SLACK_REPLICAS: "many" }).replicas).toBe("many");
    expect(() => loadConfig({ ...base, DUET_STREAMING: "maybe" })).toThrow(/DUET_STREAMING must be on or off/);
  });

  it("selects Socket Mode with an app token, where no signing secret is needed", () => {
    const c = loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", DUET_API_TOKEN: "t", SLACK_APP_TOKEN: "xapp-1-A1-x" });
    expect(c.mode).toBe("socket");
    expect(c.signingSecret).toBeUndefined();
    expect(c.healthPort).toBeUndefined();
    expect(loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", DUET_API_TOKEN: "t", SLACK_APP_TOKEN: "xapp-1-A1-x", HEALTH_PORT: "8080" }).healthPort).toBe(8080);
  });

  it("normalises URLs and reads the port and room scope", () => {
    const c = loadConfig({ ...base, SLACK_API_URL: "http://127.0.0.1:9/api", DUET_WORKER_URL: "http://w:1/", SLACK_PORT: "0", DUET_SLACK_ROOM_SCOPE: "thread" });
    expect(c.apiUrl).toBe("http://127.0.0.1:9/api/");
    expect(c.workerUrl).toBe("http://w:1");
    expect(c.port).toBe(0);
    expect(c.roomScope).toBe("thread");
  });

  it("reads who may run, approve, change the policy and reset: people and user groups, commas or spaces", () => {
    const c = loadConfig({ ...base, SLACK_ALLOW_RUN: "U01ALICE, S0OPS W02BOB,U01ALICE", SLACK_ALLOW_POLICY: "S0ADMINS", SLACK_ALLOW_RESET: " " });
    expect(c.access).toEqual({
      run: { users: ["U01ALICE", "W02BOB"], groups: ["S0OPS"] },
      // Unset, approving follows the run list.
      approve: { users: ["U01ALICE", "W02BOB"], groups: ["S0OPS"] },
      policy: { users: [], groups: ["S0ADMINS"] },
      reset: null,
    });
  });

  it("has changing the policy follow the run list when unset, and leaves reset open", () => {
    const c = loadConfig({ ...base, SLACK_ALLOW_RUN: "U01ALICE" });
    expect(c.access.policy).toEqual({ users: ["U01ALICE"], groups: [] });
    expect(c.access.reset).toBeNull();
    expect(loadConfig(base).access.policy).toBeNull();
  });

  it("reads the agent pane's suggested prompts: `Title = message`, separated by |, a bare prompt its own title", () => {
    const c = loadConfig({ ...base, SLACK_SUGGESTED_PROMPTS: " Run the tests = Run npm test and explain what fails | What is 2=2? = Say if 2=2 |Show the README " });
    expect(c.suggestedPrompts).toEqual([
      { title: "Run the tests", message: "Run npm test and explain what fails" },
      { title: "What is 2", message: "2? = Say if 2=2" },
      { title: "Show the README", message: "Show the README" },
    ]);
    expect(loadConfig({ ...base, SLACK_SUGGESTED_PROMPTS: "a=1|b=2|c=3|d=4" }).suggestedPrompts).toHaveLength(4);
    expect(loadConfig({ ...base, SLACK_SUGGESTED_PROMPTS: "  " }).suggestedPrompts).toEqual(PANE_WORDS.defaultPrompts);
  });

  it("treats empty variables as unset", () => {
    expect(loadConfig({ ...base, SLACK_PORT: "", SLACK_APP_TOKEN: " " }).port).toBe(3000);
  });

  it.each([
    [{ ...base, SLACK_BOT_TOKEN: undefined }, /^SLACK_BOT_TOKEN is required/],
    [{ ...base, SLACK_BOT_TOKEN: "xoxp-user" }, /^SLACK_BOT_TOKEN must be a bot token/],
    [{ ...base, DUET_API_TOKEN: undefined }, /^DUET_API_TOKEN is required/],
    [{ ...base, SLACK_SIGNING_SECRET: undefined }, /^SLACK_SIGNING_SECRET is required in HTTP mode/],
    [{ ...base, SLACK_APP_TOKEN: "xoxb-wrong" }, /^SLACK_APP_TOKEN must be an app-level token/],
    [{ ...base, SLACK_PORT: "http" }, /^SLACK_PORT must be a port number/],
    [{ ...base, SLACK_PORT: "70000" }, /^SLACK_PORT must be a port number/],
    [{ ...base, HEALTH_PORT: "healthz" }, /^HEALTH_PORT must be an integer from 0 to 65535/],
    [{ ...base, SLACK_API_URL: "slack.com/api" }, /^SLACK_API_URL must be an http\(s\) URL/],
    [{ ...base, DUET_WORKER_URL: "localhost:8787" }, /^DUET_WORKER_URL must be an http\(s\) URL/],
    [{ ...base, DUET_SLACK_ROOM_SCOPE: "workspace" }, /^DUET_SLACK_ROOM_SCOPE must be channel or thread/],
    [{ ...base, SLACK_REPLICAS: "3" }, /^SLACK_REPLICAS must be one or many/],
    [{ ...base, SLACK_ALLOW_RUN: "U01ALICE,@alice" }, /^SLACK_ALLOW_RUN has "@alice", which is not a Slack user id/],
    [{ ...base, SLACK_ALLOW_APPROVE: "<@U01ALICE>" }, /^SLACK_ALLOW_APPROVE has "<@U01ALICE>"/],
    [{ ...base, SLACK_ALLOW_POLICY: "C0CHANNEL" }, /^SLACK_ALLOW_POLICY has "C0CHANNEL"/],
    [{ ...base, SLACK_ALLOW_RESET: `U${"A".repeat(300)}` }, /^SLACK_ALLOW_RESET has "U/],
    [{ ...base, SLACK_SUGGESTED_PROMPTS: "a=1|b=2|c=3|d=4|e=5" }, /^SLACK_SUGGESTED_PROMPTS has 5 prompts; Slack shows at most 4$/],
    [{ ...base, SLACK_SUGGESTED_PROMPTS: "Tests = run them||Docs = read them" }, /^SLACK_SUGGESTED_PROMPTS prompt 2 is empty/],
    [{ ...base, SLACK_SUGGESTED_PROMPTS: "Tests = " }, /^SLACK_SUGGESTED_PROMPTS prompt 1 is empty/],
    [{ ...base, SLACK_SUGGESTED_PROMPTS: `${"T".repeat(101)} = go` }, /^SLACK_SUGGESTED_PROMPTS prompt 1's title is over 100 characters$/],
    [{ ...base, SLACK_SUGGESTED_PROMPTS: `ok = go | Long = ${"m\n".repeat(600)}` }, /^SLACK_SUGGESTED_PROMPTS prompt 2's message is over 1000 characters$/],
  ])("stops with one line naming the variable (%#)", (env, pattern) => {
    const message = error(env);
    expect(message).toMatch(pattern);
    expect(message).not.toContain("\n");
  });
});

const oauth = { SLACK_CLIENT_ID: "1234.5678", SLACK_CLIENT_SECRET: "client-secret", SLACK_STATE_SECRET: "state-secret-0123456789" };
const oauthBase = { DUET_API_TOKEN: "secret-token", SLACK_SIGNING_SECRET: "shh" };

describe("OAuth distribution config", () => {
  it("runs for many workspaces with all three OAuth variables and no bot token", () => {
    const c = loadConfig({ ...oauthBase, ...oauth });
    expect(c.oauth).toEqual({ clientId: "1234.5678", clientSecret: "client-secret", stateSecret: "state-secret-0123456789" });
    expect(c.botToken).toBeUndefined();
    expect(c.mode).toBe("http");
    // Single-workspace mode stays the default.
    expect(loadConfig({ ...oauthBase, SLACK_BOT_TOKEN: "xoxb-1" }).oauth).toBeUndefined();
  });

  it("stops on one line naming what is missing when only some are set", () => {
    expect(error({ ...oauthBase, SLACK_CLIENT_ID: "1234.5678" })).toBe(
      "SLACK_CLIENT_SECRET, SLACK_STATE_SECRET must be set with SLACK_CLIENT_ID: OAuth distribution needs SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET (or none of them)",
    );
    expect(error({ ...oauthBase, ...oauth, SLACK_CLIENT_SECRET: "" })).toMatch(/^SLACK_CLIENT_SECRET must be set with SLACK_CLIENT_ID, SLACK_STATE_SECRET/);
    expect(error({ ...oauthBase, ...oauth, SLACK_STATE_SECRET: "short" })).toMatch(/SLACK_STATE_SECRET must be at least 16 characters/);
    expect(error({ ...oauthBase, ...oauth, SLACK_APP_TOKEN: "xapp-1-A-x" })).toMatch(/^SLACK_APP_TOKEN cannot be used with OAuth distribution/);
    expect(error(oauthBase)).toMatch(/^SLACK_BOT_TOKEN is required .* or SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET/);
    for (const message of [error({ ...oauthBase, SLACK_CLIENT_ID: "x" }), error(oauthBase)]) expect(message).not.toContain("\n");
  });
});
