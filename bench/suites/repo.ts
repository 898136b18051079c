import { execFile } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startExecutor } from "@duet/sandbox";
import { startFakeGithub } from "../../test/fakes/github.ts";
import { BareRepos } from "../../test/helpers/git-repos.ts";
import { InstallationTokens } from "../../worker/src/github/installation-tokens.ts";
import { startBenchStack } from "../stack.ts";
import { single, summarize, type Result } from "../stats.ts";
import { buttonClick, postInteraction, slashCommand, type FakeSlack, type SlackMessage } from "../../test/fakes/slack/index.ts";
import { memoryNow } from "./bot-common.ts";
import { SECRET, startSlackBench } from "./slack.ts";
import { workerdCpuDuring } from "./worker-cpu.ts";

/**
 * The team's code in a room, timed as the thread waits for it, beside what a
 * person would run by hand on the same machine: a generated repository of
 * 5,000 files and about 10 MB (text that compresses as source does, not
 * zeros), served by `git http-backend` behind the fake GitHub.
 *
 * - Link → ready checkout (`PUT /repo` then `POST /repo/sync`): the Worker
 *   (workerd) links, mints the read token and asks the bubblewrap executor,
 *   which fetches into its mirror and clones inside the sandbox; beside a
 *   plain `git clone` over HTTP of the same repository, alternated sample by
 *   sample.
 * - Click → pull request link (`POST /repo/pr/:id/open` for a proposal of a
 *   two-file change): the commit made in the sandbox, the push with a
 *   write token, the pull request opened; and the Worker's CPU per pull
 *   request (propose and open), from /proc.
 * - The same through a Slack bot as a person sees it: `/duet pr`, then a
 *   click on Open until the proposal shows the link in place of its
 *   buttons; the bot's RSS before the first and after the last.
 */

const hasOpen = (m: SlackMessage) => JSON.stringify(m.blocks ?? []).includes("duet_pr_open");

/** `samples` pull requests proposed and opened through a Slack bot: click → link shown (ms each), and the bot's RSS before and after (MiB). */
async function throughSlack(stack: Awaited<ReturnType<typeof startBenchStack>>, change: (room: string, i: number) => Promise<void>, samples: number) {
  const bench = await startSlackBench(stack, "http", {});
  const slack: FakeSlack = bench.slack;
  const url = `http://127.0.0.1:${bench.bot.port}/slack/events`;
  try {
    const before = await memoryNow(bench.bot, 1_000);
    const times: number[] = [];
    for (let i = 0; i <= samples; i++) {
      const channel = `CREPO${i}`;
      const room = `slack-${slack.id.teamId}-${channel}`;
      await change(room, i);
      await bench.deliver("slash_commands", slashCommand(slack, { channel, text: `pr Bench change ${i}` }));
      const proposal = await slack.waitFor(() => slack.ws.channel(channel).find((m) => m.bot_id === slack.id.botId && hasOpen(m)), `the proposal in ${channel}`, 60_000);
      const value = ((proposal.blocks ?? []).find((b) => b.type === "actions") as { elements: { value: string }[] }).elements[0]!.value;
      const t0 = performance.now();
      const clicked = await postInteraction(url, buttonClick(slack, { channel, messageTs: proposal.ts, actionId: "duet_pr_open", value }), { secret: SECRET });
      if (clicked.status !== 200) throw new Error(`the bot answered ${clicked.status} to the click`);
      await slack.waitFor(() => (/pull request #\d+/.test(JSON.stringify(slack.ws.find(channel, proposal.ts)?.blocks ?? [])) ? true : undefined), `the link in ${channel}`, 60_000);
      if (i > 0) times.push(performance.now() - t0);
    }
    const after = await memoryNow(bench.bot, 1_000);
    return { times, before: before.rss, after: after.rss };
  } finally {
    await bench.close();
  }
}

const FILES = 5_000;
const BYTES = 10 * 1024 * 1024;
const run = promisify(execFile);

/** A file of about `bytes` bytes of code-like lines, different per file. */
function fileText(i: number, bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const line = `export const value_${i}_${n} = ${(i * 7919 + n * 104729) % 1000003} + compute("${(i * n).toString(36)}", ${n});\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join("");
}

export async function repoSuite(samples = 5): Promise<Result[]> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  const repos = new BareRepos();
  const root = mkdtempSync(join(tmpdir(), "duet-bench-repo-"));
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) files[`src/m${Math.floor(i / 100)}/f${i}.ts`] = fileText(i, BYTES / FILES);
  await repos.create("bench/big", [files]);
  const github = await startFakeGithub({ appId: "77", publicKey, gitRoot: repos.root });
  github.addRepo({ fullName: "bench/big", installationId: 1 });
  const token = randomBytes(16).toString("hex");
  const executor = await startExecutor({ port: 0, root, token }, () => {});
  const stack = await startBenchStack({
    executor: "real",
    vars: { SANDBOX_URL: executor.url, SANDBOX_TOKEN: token, GITHUB_APP_ID: "77", GITHUB_APP_PRIVATE_KEY: pem, GITHUB_API_URL: github.url },
  });
  const api = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${stack.workerUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const answer = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const app = new InstallationTokens({ appId: "77", privateKey: pem, apiUrl: github.url });
  const header = `Authorization: Basic ${Buffer.from(`x-access-token:${(await app.token(1, "big", { contents: "read" })).token}`).toString("base64")}`;
  const link = async (room: string) => {
    await api("PUT", `/api/rooms/${room}/repo`, { repo: "bench/big", userId: "bench" });
    await api("POST", `/api/rooms/${room}/repo/sync`);
  };
  /** A two-file change in the room's checkout. */
  const edit = (room: string, i: number) => stack.client.exec(room, { cmd: `cd ~/repo && echo "export const added = ${i};" > src/added.ts && sed -i 's/compute/computed/' src/m0/f0.ts` });
  const checkout: number[] = [];
  const clone: number[] = [];
  const toLink: number[] = [];
  let cpuPerPr = 0;
  let coldLink = 0;
  let bot: Awaited<ReturnType<typeof throughSlack>>;
  try {
    // The first round also pays the Worker's cold start (the room's Durable Object, the App key's import): not kept.
    for (let i = 0; i <= samples; i++) {
      const room = `cli-bench-repo-${i}`;
      const t0 = performance.now();
      await link(room);
      const linked = performance.now() - t0;

      const dir = mkdtempSync(join(tmpdir(), "duet-bench-clone-"));
      const t1 = performance.now();
      await run("git", ["-c", `http.extraHeader=${header}`, "clone", "--quiet", `${github.url}/bench/big.git`, join(dir, "repo")]);
      const cloned = performance.now() - t1;
      rmSync(dir, { recursive: true, force: true });

      await edit(room, i);
      let opened = 0;
      const cpu = await workerdCpuDuring(stack, async () => {
        const proposal = await api("POST", `/api/rooms/${room}/repo/pr`, { userId: "bench", title: `Bench change ${i}` });
        const t2 = performance.now();
        await api("POST", `/api/rooms/${room}/repo/pr/${String(proposal.id)}/open`, { userId: "bench" });
        opened = performance.now() - t2;
      });
      await stack.client.cleanup(room);
      if (i === 0) {
        coldLink = linked;
        continue;
      }
      checkout.push(linked);
      clone.push(cloned);
      toLink.push(opened);
      cpuPerPr += cpu.runtime / samples;
    }
    bot = await throughSlack(
      stack,
      async (room, i) => {
        await link(room);
        await edit(room, i);
      },
      samples,
    );
  } finally {
    await stack.stop();
    await executor.close();
    await github.close();
    repos.remove();
    rmSync(root, { recursive: true, force: true });
  }
  const median = (xs: number[]) => summarize("", "", xs).median;
  const what = `${FILES} files, ${BYTES / 1024 / 1024} MB`;
  return [
    summarize(`repo: link → ready checkout, ${what}`, "ms", checkout, `the Worker, the executor's mirror and a clone in bubblewrap; ${(median(checkout) / median(clone)).toFixed(2)}× the plain clone beside it (target ≤ 1.5×)`),
    single(`repo: first link → ready checkout, ${what}`, "ms", coldLink, 1, "the Worker's first: the room's object made, the App key imported, the executor's mirror fetched whole; the rows above reuse the mirror, as every later room linking this repository does"),
    summarize(`repo: plain git clone over HTTP, ${what}`, "ms", clone, "the same repository, same fake GitHub, alternated with the row above"),
    summarize("repo: click → pull request link", "ms", toLink, "a two-file change: commit in the sandbox, push with a write token, pull request opened"),
    single("repo: Worker CPU per pull request", "ms", cpuPerPr, samples, "the runtime's user + system CPU, /proc, for propose and open"),
    summarize("repo: Slack click on Open → link in the thread", "ms", bot.times, "through the bot (from source): the click, the Worker's commit, push and pull request, the proposal edited to show the link"),
    single(`repo: Slack bot RSS after ${samples + 1} pull requests`, "MiB", bot.after, 1, `${(bot.after - bot.before).toFixed(1)} MiB over before the first (${bot.before.toFixed(1)} MiB); tsx loader included`),
  ];
}
