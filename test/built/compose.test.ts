import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { BUILT_ENV, BUILT_NODE_FLAGS } from "../../scripts/build/runtime.ts";
import { snowflake, startFakeDiscord, type FakeDiscord } from "../fakes/discord/index.ts";
import { mentionEvent, postEvent, startFakeSlack, type FakeSlack } from "../fakes/slack/index.ts";
import { modelCallsFor } from "../helpers/assertions.ts";
import { quietPort } from "../helpers/ports.ts";
import { startRoundRobin, type RoundRobin } from "../helpers/round-robin.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { botReplies, newChannel, readable } from "../slack/harness.ts";
import { buildBots, healthBecomes, runBuilt, type BotProc, type Built } from "./harness.ts";
import { imageEntrypoint, imageEnv } from "./image.ts";

/**
 * docker-compose.yml as this machine can run it without Docker: every bot
 * service started as the image starts it (bots/Dockerfile's entry point and
 * ENV, the service's command and environment, the variables deploy/duet.env
 * names), as many of each as the file asks, on the built bundle; the balancer
 * in front of the Slack replicas as deploy/nginx.conf routes; the health check
 * the file declares run against a live replica. Only the ports differ: the
 * containers each have their own network, these processes share one.
 *
 * What is left unchecked here: that the image builds and nginx starts.
 */

const ROOT = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), "utf8");

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  env_file?: string;
  expose?: string[];
  deploy?: { replicas?: number };
  healthcheck?: { test: string[] };
}
const compose = parse(read("docker-compose.yml"), { merge: true }) as { services: Record<string, Service> };
const nginx = read("deploy/nginx.conf");

const botServices = Object.entries(compose.services).filter(([, s]) => s.image === "duet-bots");
const slackService = compose.services.slack;
const shardServices = botServices.filter(([, s]) => s.command?.[0] === "discord");
/** Variables deploy/duet.env.example names: what an operator fills in. */
const operatorVars = new Set([...read("deploy/duet.env.example").matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]));

/** A service's process environment: the image's, then the service's, then the operator's file, with this host's port. */
function serviceEnv(service: Service, operator: Record<string, string>, ports: Record<string, string>): Record<string, string> {
  for (const name of Object.keys(operator)) if (!name.endsWith("_API_URL")) expect(operatorVars, `${name} is not in deploy/duet.env.example`).toContain(name);
  return { ...imageEnv(), ...service.environment, ...operator, ...ports };
}

let built: Built;
let stack: Stack;
let slack: FakeSlack;
let discord: FakeDiscord;
let balancer: RoundRobin;
const procs: BotProc[] = [];
const SECRET = "compose-signing-secret";

beforeAll(async () => {
  built = await buildBots();
  stack = await startStack();
  slack = await startFakeSlack();
  discord = await startFakeDiscord({ heartbeatIntervalMs: 1_000, shardCount: Number(shardServices[0]?.[1].environment?.SHARD_COUNT ?? 1) });
}, 120_000);

afterAll(async () => {
  for (const p of procs) await p.stop();
  await balancer?.close();
  await discord?.close();
  await slack?.close();
  await stack?.stop();
  built?.remove();
});

describe("docker-compose.yml, run as processes", () => {
  it("the image runs the bundle the way the built bots are tested (flags and memory settings)", () => {
    expect(imageEntrypoint).toEqual(["node", ...BUILT_NODE_FLAGS, "duet-bot.js"]);
    expect(imageEnv()).toMatchObject(BUILT_ENV);
    for (const [name, s] of botServices) expect(["slack", "discord", "discord-sharded", "discord-register"], `${name}'s command`).toContain(s.command?.[0]);
  });

  it("the balancer sends every Slack route to the Slack service on the port it listens on", () => {
    const port = imageEnv().SLACK_PORT;
    expect(slackService.expose).toContain(port);
    const upstream = /upstream\s+(\w+)\s*\{[^}]*server\s+slack:(\d+)/.exec(nginx);
    expect(upstream?.[2]).toBe(port);
    const location = /location\s+(\/\S*)\s*\{[^}]*proxy_pass\s+http:\/\/(\w+);/.exec(nginx);
    expect(location?.[2]).toBe(upstream?.[1]);
    // Events, commands and clicks, and the OAuth install pages, all under one prefix.
    for (const route of ["/slack/events", "/slack/install", "/slack/oauth_redirect"]) expect(route.startsWith(location![1])).toBe(true);
  });

  it("the Slack replicas behind the balancer answer a mention once, and pass the file's own health check", async () => {
    const count = slackService.deploy?.replicas ?? 1;
    expect(count).toBeGreaterThan(1);
    const urls: string[] = [];
    for (let i = 0; i < count; i++) {
      const port = String(await quietPort());
      const env = serviceEnv(slackService, { DUET_WORKER_URL: stack.workerUrl, DUET_API_TOKEN: stack.token, SLACK_BOT_TOKEN: slack.id.botToken, SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: slack.apiUrl }, { SLACK_PORT: port });
      const proc = runBuilt(built, slackService.command![0] as "slack", env);
      procs.push(proc);
      await proc.waitForOutput(`listens for Slack on port ${port}`, 60_000);
      urls.push(`http://127.0.0.1:${port}`);
    }
    balancer = await startRoundRobin(() => urls);

    // The health check as the file writes it, pointed at this replica's port.
    const check = slackService.healthcheck!.test;
    expect(check[0]).toBe("CMD");
    const script = check.slice(1).map((a) => a.replace(`:${imageEnv().SLACK_PORT}/`, `:${new URL(urls[0]).port}/`));
    await expect(promisify(execFile)(script[0], script.slice(1))).resolves.toBeDefined();

    const channel = newChannel();
    const payload = mentionEvent(slack, { channel, text: "SAY: composed-answer" });
    const ts = String(payload.event.ts);
    expect((await postEvent(`${balancer.url}/slack/events`, payload, { secret: SECRET })).status).toBe(200);
    expect((await postEvent(`${balancer.url}/slack/events`, payload, { secret: SECRET, retryNum: 1, retryReason: "http_timeout" })).status).toBe(200);
    expect(new Set(balancer.sentTo.filter((s) => s.path === "/slack/events").map((s) => s.replica)).size).toBe(2);
    const finished = () => botReplies(slack, channel, ts).filter((m) => readable(m).includes("composed-answer") && !JSON.stringify(m.blocks ?? []).includes("duet_stop"));
    await expect.poll(() => finished().length, { timeout: 30_000, interval: 100 }).toBeGreaterThan(0);
    // Barrier: a later mention through the balancer is answered after anything the retry could post.
    const later = mentionEvent(slack, { channel, text: "SAY: composed-later" });
    await postEvent(`${balancer.url}/slack/events`, later, { secret: SECRET });
    await expect.poll(() => botReplies(slack, channel, String(later.event.ts)).some((m) => readable(m).includes("composed-later") && !JSON.stringify(m.blocks ?? []).includes("duet_stop")), { timeout: 30_000, interval: 100 }).toBe(true);
    expect(finished()).toHaveLength(1);
    expect(modelCallsFor(stack, "composed-answer")).toBe(1);
  }, 120_000);

  it("each Discord shard service serves its own guilds and answers their mentions once", async () => {
    expect(shardServices.length).toBeGreaterThan(1);
    const at = Date.now();
    const total = Number(shardServices[0][1].environment!.SHARD_COUNT);
    const healthPorts: number[] = [];
    const asked: { shard: number; channel: string }[] = [];
    for (const [, service] of shardServices) {
      const shard = Number(service.environment!.SHARDS);
      expect(Number(service.environment!.SHARD_COUNT)).toBe(total);
      // A guild's shard is (id >> 22) % total: a timestamp chosen for this shard.
      const guild = discord.addGuild(`compose-shard-${shard}`, snowflake(at - (at % total) + shard));
      asked.push({ shard, channel: discord.addChannel(guild, `composed-${shard}`) });
      const port = await quietPort();
      healthPorts.push(port);
      const env = serviceEnv(service, { DUET_WORKER_URL: stack.workerUrl, DUET_API_TOKEN: stack.token, DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.api }, { HEALTH_PORT: String(port) });
      procs.push(runBuilt(built, service.command![0] as "discord", env));
    }
    for (const port of healthPorts) expect((await healthBecomes(port, 200, 60_000)).ok).toBe(true);
    expect(discord.gateway.received.filter((r) => r.op === 2).map((r) => (r.d as { shard: number[] }).shard[0]).sort()).toEqual(shardServices.map(([, s]) => Number(s.environment!.SHARDS)).sort());

    const answers = (channel: string, marker: string) => discord.messagesIn(channel).filter((m) => m.author.id === discord.botUser.id && m.content.includes(marker));
    for (const { shard, channel } of asked) discord.message(channel, `SAY: composed-shard-${shard}-${at}`, { mention: true });
    for (const { shard, channel } of asked) await expect.poll(() => answers(channel, `composed-shard-${shard}-${at}`).length, { timeout: 30_000, interval: 100 }).toBeGreaterThan(0);
    // Barrier: a later mention on the first shard is answered after anything the others could still post.
    discord.message(asked[0].channel, `SAY: composed-later-${at}`, { mention: true });
    await expect.poll(() => answers(asked[0].channel, `composed-later-${at}`).length, { timeout: 30_000, interval: 100 }).toBe(1);
    for (const { shard, channel } of asked) {
      expect(answers(channel, `composed-shard-${shard}-${at}`)).toHaveLength(1);
      expect(modelCallsFor(stack, `composed-shard-${shard}-${at}`)).toBe(1);
    }
  }, 120_000);
});
