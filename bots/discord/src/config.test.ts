import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

const base = { DISCORD_TOKEN: "abc.def.ghi", DUET_API_TOKEN: "secret" };

describe("loadConfig", () => {
  it("applies defaults and trims URLs", () => {
    expect(loadConfig({ ...base, DISCORD_API_URL: "http://127.0.0.1:5/api/" })).toEqual({
      access: { run: null, approve: null, policy: null, reset: null },
      token: "abc.def.ghi",
      applicationId: undefined,
      guildId: undefined,
      apiUrl: "http://127.0.0.1:5/api",
      shardCount: "auto",
      workerUrl: "http://127.0.0.1:8787",
      apiToken: "secret",
      streaming: true,
      approveOwn: true,
      fileMaxBytes: 25 * 1024 * 1024,
      cdnOrigins: [],
      components: "classic",
    });
    expect(loadConfig({ ...base, DUET_STREAMING: "off" }).streaming).toBe(false);
    expect(loadConfig({ ...base, DISCORD_COMPONENTS: "v2" }).components).toBe("v2");
  });

  it.each([
    [{ DUET_API_TOKEN: "x" }, "DISCORD_TOKEN is required"],
    [{ DISCORD_TOKEN: "Bot abc" }, "DISCORD_TOKEN must not contain spaces"],
    [{ DISCORD_TOKEN: "abc" }, "DUET_API_TOKEN is required"],
    [{ ...base, DISCORD_APPLICATION_ID: "app" }, "DISCORD_APPLICATION_ID must be a Discord id"],
    [{ ...base, DUET_WORKER_URL: "localhost:8787" }, "DUET_WORKER_URL must be an http(s) URL"],
    [{ ...base, HEALTH_PORT: "-1" }, "HEALTH_PORT must be an integer from 0 to 65535"],
    [{ ...base, DISCORD_ALLOW_RUN: "Ops" }, 'DISCORD_ALLOW_RUN has "Ops", which is not a Discord role id'],
    [{ ...base, DISCORD_ALLOW_APPROVE: "<@&123456789012345678>" }, 'DISCORD_ALLOW_APPROVE has "<@&123456789012345678>"'],
    [{ ...base, DISCORD_ALLOW_POLICY: "manage_channels" }, 'DISCORD_ALLOW_POLICY has "manage_channels"'],
    [{ ...base, DISCORD_COMPONENTS: "V3" }, "DISCORD_COMPONENTS must be classic or v2"],
  ])("refuses %j with one line naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it("reads who may run, approve, change the policy and reset: role ids and manage-channels", () => {
    const c = loadConfig({ ...base, DISCORD_ALLOW_RUN: "123456789012345678,Manage-Channels", DISCORD_ALLOW_APPROVE: "123456789012345678 223456789012345678" });
    expect(c.access).toEqual({
      run: { roles: ["123456789012345678"], manageChannels: true },
      approve: { roles: ["123456789012345678", "223456789012345678"], manageChannels: false },
      // Unset, changing the policy follows the run list; reset stays open.
      policy: { roles: ["123456789012345678"], manageChannels: true },
      reset: null,
    });
  });

  it("treats empty values as unset, and registering needs no Worker token", () => {
    expect(loadConfig({ ...base, DUET_WORKER_URL: "" }).workerUrl).toBe("http://127.0.0.1:8787");
    expect(loadConfig({ ...base, HEALTH_PORT: "" }).healthPort).toBeUndefined();
    expect(loadConfig({ ...base, HEALTH_PORT: "8080" }).healthPort).toBe(8080);
    expect(loadConfig({ DISCORD_TOKEN: "abc", DISCORD_GUILD_ID: "123456789012345678" }, "register")).toMatchObject({ guildId: "123456789012345678", apiToken: "" });
  });
});
