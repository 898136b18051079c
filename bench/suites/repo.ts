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
 */

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
  const checkout: number[] = [];
  const clone: number[] = [];
  const toLink: number[] = [];
  let cpuPerPr = 0;
  try {
    // The first round also pays the Worker's cold start (the room's Durable Object, the App key's import): not kept.
    for (let i = 0; i <= samples; i++) {
      const room = `cli-bench-repo-${i}`;
      const t0 = performance.now();
      await api("PUT", `/api/rooms/${room}/repo`, { repo: "bench/big", userId: "bench" });
      await api("POST", `/api/rooms/${room}/repo/sync`);
      const linked = performance.now() - t0;

      const dir = mkdtempSync(join(tmpdir(), "duet-bench-clone-"));
      const t1 = performance.now();
      await run("git", ["-c", `http.extraHeader=${header}`, "clone", "--quiet", `${github.url}/bench/big.git`, join(dir, "repo")]);
      const cloned = performance.now() - t1;
      rmSync(dir, { recursive: true, force: true });

      await stack.client.exec(room, { cmd: `cd ~/repo && echo "export const added = ${i};" > src/added.ts && sed -i 's/compute/computed/' src/m0/f0.ts` });
      let opened = 0;
      const cpu = await workerdCpuDuring(stack, async () => {
        const proposal = await api("POST", `/api/rooms/${room}/repo/pr`, { userId: "bench", title: `Bench change ${i}` });
        const t2 = performance.now();
        await api("POST", `/api/rooms/${room}/repo/pr/${String(proposal.id)}/open`, { userId: "bench" });
        opened = performance.now() - t2;
      });
      await stack.client.cleanup(room);
      if (i === 0) continue;
      checkout.push(linked);
      clone.push(cloned);
      toLink.push(opened);
      cpuPerPr += cpu.runtime / samples;
    }
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
    summarize(`repo: plain git clone over HTTP, ${what}`, "ms", clone, "the same repository, same fake GitHub, alternated with the row above"),
    summarize("repo: click → pull request link", "ms", toLink, "a two-file change: commit in the sandbox, push with a write token, pull request opened"),
    single("repo: Worker CPU per pull request", "ms", cpuPerPr, samples, "the runtime's user + system CPU, /proc, for propose and open"),
  ];
}
