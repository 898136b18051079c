import { execFile } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startFakeGithub } from "../test/fakes/github.ts";
import { BareRepos } from "../test/helpers/git-repos.ts";
import { startSandboxStack } from "../test/helpers/sandbox-stack.ts";
import { InstallationTokens } from "../worker/src/github/installation-tokens.ts";

/**
 * From a link to a ready checkout, beside a plain `git clone` of the same
 * repository on the same machine: a generated repository of 5,000 files and
 * about 10 MB (text that compresses as source does, not zeros), served by
 * `git http-backend` behind the fake GitHub. The checkout goes through every
 * real part: the Worker (workerd) links, mints the read token and asks the
 * bubblewrap executor, which fetches into its mirror and clones inside the
 * sandbox. Run: `npx tsx bench/checkout.ts` (SAMPLES=n to change the count).
 */

const FILES = 5_000;
const BYTES = 10 * 1024 * 1024;
const SAMPLES = Number(process.env.SAMPLES ?? 3);
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

async function main(): Promise<void> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const repos = new BareRepos();
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) files[`src/m${Math.floor(i / 100)}/f${i}.ts`] = fileText(i, BYTES / FILES);
  await repos.create("bench/big", [files]);
  const github = await startFakeGithub({ appId: "77", publicKey, gitRoot: repos.root });
  github.addRepo({ fullName: "bench/big", installationId: 1 });
  const pem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  const sandbox = await startSandboxStack({
    wire: ({ url, token }) => ({ SANDBOX_URL: url, SANDBOX_TOKEN: token, GITHUB_APP_ID: "77", GITHUB_APP_PRIVATE_KEY: pem, GITHUB_API_URL: github.url }),
  });
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${sandbox.stack.workerUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${sandbox.stack.token}`, "content-type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const app = new InstallationTokens({ appId: "77", privateKey: pem, apiUrl: github.url });
  const header = `Authorization: Basic ${Buffer.from(`x-access-token:${(await app.token(1, "big", { contents: "read" })).token}`).toString("base64")}`;
  const duet: number[] = [];
  const plain: number[] = [];
  try {
    // The first sample also pays the Worker's cold start (the room's Durable Object, the App key's import): reported apart.
    for (let i = 0; i <= SAMPLES; i++) {
      const room = `cli-bench-checkout-${Date.now()}-${i}`;
      const t0 = performance.now();
      if (!(await api("PUT", `/api/rooms/${room}/repo`, { repo: "bench/big", userId: "bench" })).ok) throw new Error("link failed");
      const synced = await api("POST", `/api/rooms/${room}/repo/sync`);
      if (!synced.ok) throw new Error(`sync failed: ${await synced.text()}`);
      duet.push(performance.now() - t0);
      await sandbox.stack.client.cleanup(room);

      const dir = mkdtempSync(join(tmpdir(), "duet-bench-clone-"));
      const t1 = performance.now();
      await run("git", ["-c", `http.extraHeader=${header}`, "clone", "--quiet", `${github.url}/bench/big.git`, join(dir, "repo")]);
      plain.push(performance.now() - t1);
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await sandbox.stop();
    await github.close();
    repos.remove();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const cold = duet.shift()!;
  plain.shift();
  const d = median(duet);
  const p = median(plain);
  console.log(`checkout of ${FILES} files, ${(BYTES / 1024 / 1024).toFixed(0)} MB, median of ${SAMPLES}:`);
  console.log(`  link → ready checkout (Worker, executor mirror, clone in bwrap): ${d.toFixed(0)} ms  [${duet.map((x) => x.toFixed(0)).join(", ")}]`);
  console.log(`  plain git clone over HTTP:                                       ${p.toFixed(0)} ms  [${plain.map((x) => x.toFixed(0)).join(", ")}]`);
  console.log(`  ratio: ${(d / p).toFixed(2)}x (target ≤ 1.5x); the first, cold link took ${cold.toFixed(0)} ms`);
}

await main();
