import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import type { Vars } from "./vars.ts";

const load = (vars: Record<string, string>) => loadConfig(vars as unknown as Vars);

describe("Worker config: generation settings", () => {
  it("defaults to 1024 tokens at temperature 0.2 and reads both from the environment", () => {
    expect(load({})).toMatchObject({ MODEL_MAX_TOKENS: 1024, MODEL_TEMPERATURE: 0.2 });
    expect(load({ MODEL_MAX_TOKENS: "300", MODEL_TEMPERATURE: "0" })).toMatchObject({ MODEL_MAX_TOKENS: 300, MODEL_TEMPERATURE: 0 });
  });

  it("stops with one line naming the variable when a value is malformed", () => {
    expect(() => load({ MODEL_MAX_TOKENS: "lots" })).toThrow("Worker misconfigured: MODEL_MAX_TOKENS must be an integer from 16 to 32768");
    expect(() => load({ MODEL_TEMPERATURE: "warm" })).toThrow("Worker misconfigured: MODEL_TEMPERATURE must be a number from 0 to 2");
    expect(() => load({ MODEL_TEMPERATURE: "3" })).toThrow(/MODEL_TEMPERATURE/);
  });
});

describe("Worker config: schedules", () => {
  it("defaults to a 15-minute minimum interval and 10 schedules a room, and reads both", () => {
    expect(load({})).toMatchObject({ DUET_SCHEDULE_MIN_INTERVAL_S: 900, DUET_SCHEDULES_PER_ROOM: 10 });
    expect(load({ DUET_SCHEDULE_MIN_INTERVAL_S: "60", DUET_SCHEDULES_PER_ROOM: "3" })).toMatchObject({ DUET_SCHEDULE_MIN_INTERVAL_S: 60, DUET_SCHEDULES_PER_ROOM: 3 });
  });

  it("stops with one line naming the variable when a value is malformed", () => {
    expect(() => load({ DUET_SCHEDULE_MIN_INTERVAL_S: "15m" })).toThrow("Worker misconfigured: DUET_SCHEDULE_MIN_INTERVAL_S must be an integer from 1 to 604800");
    expect(() => load({ DUET_SCHEDULES_PER_ROOM: "-1" })).toThrow("Worker misconfigured: DUET_SCHEDULES_PER_ROOM must be an integer from 0 to 100");
  });
});

describe("Worker config: the delivery lease", () => {
  it("leases an answer to a bot for 15 s by default and reads the lease, from a second to 10 minutes", () => {
    expect(load({})).toMatchObject({ DUET_DELIVERY_LEASE_MS: 15_000 });
    expect(load({ DUET_DELIVERY_LEASE_MS: "3000" })).toMatchObject({ DUET_DELIVERY_LEASE_MS: 3_000 });
  });

  it("stops with one line naming the variable when the lease is out of bounds or not a number", () => {
    for (const bad of ["500", "600001", "15s"]) {
      expect(() => load({ DUET_DELIVERY_LEASE_MS: bad })).toThrow("Worker misconfigured: DUET_DELIVERY_LEASE_MS must be an integer from 1000 to 600000");
    }
  });
});

describe("Worker config: the room's summary", () => {
  it("summarises after 2000 tokens of history out of the window by default, 0 turns it off, and reads it", () => {
    expect(load({})).toMatchObject({ DUET_SUMMARY_TOKENS: 2000 });
    expect(load({ DUET_SUMMARY_TOKENS: "0" })).toMatchObject({ DUET_SUMMARY_TOKENS: 0 });
    expect(load({ DUET_SUMMARY_TOKENS: "500" })).toMatchObject({ DUET_SUMMARY_TOKENS: 500 });
  });

  it("stops with one line naming the variable when it is malformed", () => {
    for (const bad of ["lots", "-1", "1.5", "2000000"]) {
      expect(() => load({ DUET_SUMMARY_TOKENS: bad })).toThrow("Worker misconfigured: DUET_SUMMARY_TOKENS must be an integer from 0 to 1000000");
    }
  });
});

describe("Worker config: models and budgets", () => {
  it("offers MODEL first, then the rest of DUET_MODELS; the first of DUET_MODELS is the default without MODEL", () => {
    expect(load({ MODEL: "a", DUET_MODELS: "b, a ,c" })).toMatchObject({ model: "a", models: ["a", "b", "c"] });
    expect(load({ DUET_MODELS: "b,c" })).toMatchObject({ model: "b", models: ["b", "c"] });
  });

  it("serves each offered model from its own provider, plain names from MODEL_PROVIDER", () => {
    const c = load({ MODEL_PROVIDER: "openai", DUET_MODELS: "small,fast=workers-ai:@cf/meta/llama-3.1-8b-instruct,strong=openai:gpt-4o", MODEL: "strong" });
    expect(c.models).toEqual(["strong", "small", "fast"]);
    expect(Object.fromEntries(c.offered)).toEqual({
      small: { provider: "openai", model: "small" },
      fast: { provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct" },
      strong: { provider: "openai", model: "gpt-4o" },
    });
  });

  it("stops with one line on an unknown provider, an empty name or a name given twice", () => {
    expect(() => load({ DUET_MODELS: "fast=anthropic:claude" })).toThrow('Worker misconfigured: DUET_MODELS has "fast=anthropic:claude": "anthropic" is not a provider (one of workers-ai, openai)');
    expect(() => load({ DUET_MODELS: "=openai:gpt-4o" })).toThrow(/^Worker misconfigured: DUET_MODELS has "=openai:gpt-4o": the name before = is empty/);
    expect(() => load({ DUET_MODELS: "a=openai:x,a=workers-ai:y" })).toThrow('Worker misconfigured: DUET_MODELS names "a" twice; each name must be different');
  });

  it("reads the daily token budgets, none when unset, and stops with one line on one that is not a number", () => {
    const none = load({});
    expect([none.DUET_ROOM_DAILY_TOKENS, none.DUET_USER_DAILY_TOKENS]).toEqual([undefined, undefined]);
    expect(load({ DUET_ROOM_DAILY_TOKENS: "50000", DUET_USER_DAILY_TOKENS: "300" })).toMatchObject({ DUET_ROOM_DAILY_TOKENS: 50_000, DUET_USER_DAILY_TOKENS: 300 });
    expect(() => load({ DUET_ROOM_DAILY_TOKENS: "lots" })).toThrow("Worker misconfigured: DUET_ROOM_DAILY_TOKENS must be an integer from 1 to 1000000000000");
    expect(() => load({ DUET_USER_DAILY_TOKENS: "12k" })).toThrow(/^Worker misconfigured: DUET_USER_DAILY_TOKENS must be an integer/);
  });
});

describe("Worker config: the GitHub App", () => {
  it("is off with no GITHUB_APP_* set, and on with an id and a key, on github.com unless GITHUB_API_URL says otherwise", () => {
    expect(load({}).github).toBeNull();
    expect(load({ GITHUB_APP_ID: "123", GITHUB_APP_PRIVATE_KEY: "pem" }).github).toEqual({ appId: "123", privateKey: "pem", apiUrl: "https://api.github.com" });
    const ghes = load({ GITHUB_APP_ID: "123", GITHUB_APP_PRIVATE_KEY: "pem", GITHUB_APP_SLUG: "duet-dev", GITHUB_WEBHOOK_SECRET: "whs", GITHUB_API_URL: "https://ghe.example/api/v3/" });
    expect(ghes.github).toEqual({ appId: "123", privateKey: "pem", slug: "duet-dev", webhookSecret: "whs", apiUrl: "https://ghe.example/api/v3" });
    // The key and the webhook secret are never shown back.
    expect(ghes.secrets).toEqual(expect.arrayContaining(["pem", "whs"]));
  });

  it("stops with one line when the App is half configured or a value is malformed", () => {
    const half = "Worker misconfigured: a GitHub App needs both GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY (set both, or no GITHUB_APP_* at all)";
    expect(() => load({ GITHUB_APP_ID: "123" })).toThrow(half);
    expect(() => load({ GITHUB_APP_PRIVATE_KEY: "pem" })).toThrow(half);
    expect(() => load({ GITHUB_APP_SLUG: "duet" })).toThrow(half);
    expect(() => load({ GITHUB_APP_ID: "duet", GITHUB_APP_PRIVATE_KEY: "pem" })).toThrow("Worker misconfigured: GITHUB_APP_ID must be the App's numeric id");
    expect(() => load({ GITHUB_APP_ID: "1", GITHUB_APP_PRIVATE_KEY: "pem", GITHUB_API_URL: "ghe" })).toThrow("Worker misconfigured: GITHUB_API_URL must be a URL");
  });
});

describe("Worker config: a plain git remote", () => {
  it("is off with neither DUET_GIT_REMOTE_* set, on with a URL template and a token; the token is never shown back", () => {
    expect(load({}).gitRemote).toBeNull();
    const on = load({ DUET_GIT_REMOTE_URL: "https://git.example.com/{repo}.git", DUET_GIT_REMOTE_TOKEN: "glpat-abc" });
    expect(on.gitRemote).toEqual({ urlTemplate: "https://git.example.com/{repo}.git", token: "glpat-abc" });
    expect(on.secrets).toContain("glpat-abc");
  });

  it("stops with one line when half set, without {repo}, not https off loopback, or carrying credentials", () => {
    const bad = (url: string) => () => load({ DUET_GIT_REMOTE_URL: url, DUET_GIT_REMOTE_TOKEN: "t" });
    const half = "Worker misconfigured: a git remote needs both DUET_GIT_REMOTE_URL and DUET_GIT_REMOTE_TOKEN (set both, or neither)";
    expect(() => load({ DUET_GIT_REMOTE_TOKEN: "t" })).toThrow(half);
    expect(() => load({ DUET_GIT_REMOTE_URL: "https://git.example.com/{repo}.git" })).toThrow(half);
    expect(bad("https://git.example.com/acme/widgets.git")).toThrow("Worker misconfigured: DUET_GIT_REMOTE_URL must name the repository with {repo} (e.g. https://git.example.com/{repo}.git)");
    expect(bad("http://git.example.com/{repo}.git")).toThrow("Worker misconfigured: DUET_GIT_REMOTE_URL must be https (http only on 127.0.0.1 or localhost)");
    expect(bad("https://me:pw@git.example.com/{repo}.git")).toThrow("Worker misconfigured: DUET_GIT_REMOTE_URL must carry no credentials: put the token in DUET_GIT_REMOTE_TOKEN");
    expect(bad("https://git.example.com/{repo}.git?x=1")).toThrow("Worker misconfigured: DUET_GIT_REMOTE_URL must have no query or fragment");
    expect(bad("not a url {repo}")).toThrow("Worker misconfigured: DUET_GIT_REMOTE_URL must be a URL (e.g. https://git.example.com/{repo}.git)");
    expect(load({ DUET_GIT_REMOTE_URL: "http://127.0.0.1:3000/{repo}.git", DUET_GIT_REMOTE_TOKEN: "t" }).gitRemote).not.toBeNull();
  });
});
