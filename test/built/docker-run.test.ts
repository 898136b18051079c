import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeDiscord, type FakeDiscord } from "../fakes/discord/index.ts";
import { mentionEvent, postEvent, startFakeSlack, type FakeSlack } from "../fakes/slack/index.ts";
import { modelCallsFor } from "../helpers/assertions.ts";
import { shellCommands, shellWords } from "../helpers/doc-commands.ts";
import { quietPort } from "../helpers/ports.ts";
import { startStack, type Stack } from "../helpers/stack.ts";
import { botReplies, newChannel, readable } from "../slack/harness.ts";
import { buildBots, healthBecomes, runBuilt, type BotProc, type Built } from "./harness.ts";
import { imageEnv } from "./image.ts";

/**
 * docs/deploying.md's `docker run` lines, run as the image would run them on a
 * machine without Docker: the built bundle started as the image starts it, with
 * the image's ENV and only the variables the line passes with `-e`, so a line
 * that forgets one a bot needs fails here. What a container does differently is
 * stood in for: each published port is given a free port of this host (the
 * processes share one network), and Slack's and Discord's APIs are the fakes'.
 */

interface DockerRun {
  line: string;
  /** Names passed with `-e NAME` (their values come from the operator's shell). */
  passed: string[];
  /** `-p HOST:CONTAINER`'s container ports. */
  published: string[];
  /** The words after the image: the bot to start. */
  command: string[];
}

function parseRun(line: string): DockerRun {
  const words = shellWords(line).slice(2);
  const run: DockerRun = { line, passed: [], published: [], command: [] };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === "-e") run.passed.push(words[++i]!);
    else if (w === "-p") run.published.push(words[++i]!.split(":").at(-1)!);
    else if (w === "--name" || w === "--restart") i++;
    else if (w.startsWith("-")) continue;
    else {
      expect(w, line).toBe("duet-bots");
      run.command = words.slice(i + 1);
      break;
    }
  }
  return run;
}

const runs = shellCommands(readFileSync(new URL("../../docs/deploying.md", import.meta.url), "utf8"))
  .filter((l) => l.startsWith("docker run "))
  .map(parseRun);

let built: Built;
let stack: Stack;
let slack: FakeSlack;
let discord: FakeDiscord;
const procs: BotProc[] = [];
const SECRET = "docker-run-signing-secret";

beforeAll(async () => {
  built = await buildBots();
  stack = await startStack();
  slack = await startFakeSlack();
  discord = await startFakeDiscord({ heartbeatIntervalMs: 1_000 });
}, 120_000);

afterAll(async () => {
  for (const p of procs) await p.stop();
  await discord?.close();
  await slack?.close();
  await stack?.stop();
  built?.remove();
});

/** What the operator's shell holds: every value a line may pass with `-e`. */
const operatorShell = (): Record<string, string> => ({
  SLACK_BOT_TOKEN: slack.id.botToken,
  SLACK_APP_TOKEN: slack.id.appToken,
  SLACK_SIGNING_SECRET: SECRET,
  DISCORD_TOKEN: discord.token,
  DISCORD_APPLICATION_ID: discord.applicationId,
  DUET_WORKER_URL: stack.workerUrl,
  DUET_API_TOKEN: stack.token,
});

/** The process environment of a line: the image's ENV, the `-e` names, the fakes for the platforms, this host's ports. */
async function containerEnv(run: DockerRun): Promise<{ env: Record<string, string>; ports: Record<string, number> }> {
  const shell = operatorShell();
  const env: Record<string, string> = { ...imageEnv(), SLACK_API_URL: slack.apiUrl, DISCORD_API_URL: discord.api };
  for (const name of run.passed) {
    expect(shell, `${run.line}: -e ${name}`).toHaveProperty(name);
    env[name] = shell[name]!;
  }
  const ports: Record<string, number> = {};
  for (const name of ["SLACK_PORT", "HEALTH_PORT"]) {
    ports[env[name]!] = await quietPort();
    env[name] = String(ports[env[name]!]);
  }
  return { env, ports };
}

/** /healthz on `port` answering 200, or the bot's own words when it exits first (a missing variable ends it at start). */
async function healthy(bot: BotProc, port: number): Promise<void> {
  const exited = bot.exited.then((code) => Promise.reject(new Error(`the bot exited ${code}: ${bot.output().trim()}`)));
  exited.catch(() => undefined); // stopped after the test: not a failure
  expect((await Promise.race([healthBecomes(port, 200, 60_000), exited])).ok).toBe(true);
}

describe("docs/deploying.md's docker run lines, run as the image runs them", () => {
  it("shows the four: Slack over Socket Mode and over HTTP, Discord, and Discord's command registration", () => {
    expect(runs.map((r) => r.command.join(" "))).toEqual(["slack", "slack", "discord", "discord-register"]);
  });

  it("Slack over Socket Mode: connects with the variables its line passes, and its published port is /healthz", async () => {
    const run = runs.find((r) => r.command[0] === "slack" && r.passed.includes("SLACK_APP_TOKEN"))!;
    const { env, ports } = await containerEnv(run);
    const bot = runBuilt(built, "slack", env);
    procs.push(bot);
    expect(run.published).toHaveLength(1);
    await healthy(bot, ports[run.published[0]!]!);
  }, 120_000);

  it("Slack over HTTP: its published port takes Slack's signed events and the mention is answered once", async () => {
    const run = runs.find((r) => r.command[0] === "slack" && r.passed.includes("SLACK_SIGNING_SECRET"))!;
    const { env, ports } = await containerEnv(run);
    const bot = runBuilt(built, "slack", env);
    procs.push(bot);
    const port = ports[run.published[0]!]!;
    await healthy(bot, port);
    const channel = newChannel();
    const payload = mentionEvent(slack, { channel, text: "SAY: docker-run-http" });
    expect((await postEvent(`http://127.0.0.1:${port}/slack/events`, payload, { secret: SECRET })).status).toBe(200);
    const answered = () => botReplies(slack, channel, String(payload.event.ts)).filter((m) => readable(m).includes("docker-run-http") && !JSON.stringify(m.blocks ?? []).includes("duet_stop"));
    await expect.poll(() => answered().length, { timeout: 30_000, interval: 100 }).toBe(1);
    expect(modelCallsFor(stack, "docker-run-http")).toBe(1);
  }, 120_000);

  it("Discord: connects with the variables its line passes, and its published port is /healthz", async () => {
    const run = runs.find((r) => r.command[0] === "discord")!;
    const { env, ports } = await containerEnv(run);
    const bot = runBuilt(built, "discord", env);
    procs.push(bot);
    await healthy(bot, ports[run.published[0]!]!);
  }, 120_000);

  it("discord-register: registers /duet and \"Ask Duet\" for every server with the variables its line passes", async () => {
    const run = runs.find((r) => r.command[0] === "discord-register")!;
    const { env } = await containerEnv(run);
    const register = runBuilt(built, "discord-register", env);
    expect(await register.exited, register.output()).toBe(0);
    expect((discord.commands.global as { name: string; type: number }[]).map((c) => [c.name, c.type])).toEqual([["duet", 1], ["Ask Duet", 3]]);
  }, 120_000);
});
