import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { DuetError, WorkerClient, type MessageResponse } from "@duet/shared";
import { startExecutor } from "@duet/sandbox";
import { startWorker } from "../../test/helpers/worker.ts";
import { modelEndpointProblem } from "../model-probe.ts";
import { type Person, SCENARIOS, type Scenario } from "./scenarios.ts";
import { formatTable, scoreAnswer, type EvalRow } from "./score.ts";

/**
 * `pnpm eval`: asks the model the environment names (MODEL_PROVIDER=openai,
 * OPENAI_BASE_URL, OPENAI_API_KEY, MODEL) a few everyday requests through a real
 * Worker and the local bubblewrap sandbox, and prints what it did: whether it used
 * tags, which commands Duet ran, the answer, then a table. An operator runs it
 * before pointing a team at a model.
 */

/** Worker settings an operator may tune for the model under test; passed through when set. */
const PASSED_THROUGH = ["OPENAI_API_KEY", "MODEL", "MODEL_MAX_TOKENS", "MODEL_TEMPERATURE", "MODEL_TIMEOUT_MS", "COMMAND_TIMEOUT_MS"];

export class EvalSetupError extends Error {}

export async function runEval(env: NodeJS.ProcessEnv, print: (line: string) => void, scenarios: Scenario[] = SCENARIOS): Promise<EvalRow[]> {
  if ((env.MODEL_PROVIDER ?? "openai") !== "openai") {
    throw new EvalSetupError("pnpm eval runs the Worker locally, where only MODEL_PROVIDER=openai works (Workers AI needs a deployment)");
  }
  if (!env.OPENAI_BASE_URL) throw new EvalSetupError("set OPENAI_BASE_URL to the model's endpoint, e.g. http://127.0.0.1:11434/v1 for Ollama");
  await checkModelReachable(env.OPENAI_BASE_URL, env.OPENAI_API_KEY);

  // Two directories: the executor makes its root reachable by the sandbox's user, the Worker's state stays private.
  const sandboxRoot = mkdtempSync(join(tmpdir(), "duet-eval-sandbox-"));
  const workerDir = mkdtempSync(join(tmpdir(), "duet-eval-worker-"));
  const sandboxToken = randomBytes(16).toString("hex");
  const apiToken = randomBytes(16).toString("hex");
  const executor = await startExecutor({ port: 0, root: sandboxRoot, token: sandboxToken }, () => {}).catch((err) => {
    removeDirs(sandboxRoot, workerDir);
    throw err;
  });
  const passed = Object.fromEntries(PASSED_THROUGH.flatMap((k) => (env[k] ? [[k, env[k]!]] : [])));
  const worker = await startWorker(
    {
      ...passed,
      DUET_API_TOKEN: apiToken,
      MODEL_PROVIDER: "openai",
      OPENAI_BASE_URL: env.OPENAI_BASE_URL,
      SANDBOX_PROVIDER: "local",
      SANDBOX_URL: executor.url,
      SANDBOX_TOKEN: sandboxToken,
    },
    workerDir,
  ).catch(async (err) => {
    await executor.close();
    removeDirs(sandboxRoot, workerDir);
    throw err;
  });
  const client = new WorkerClient({ baseUrl: worker.url, token: apiToken });
  const rows: EvalRow[] = [];
  try {
    print(`Model: ${env.MODEL ?? "(the endpoint's default)"} at ${env.OPENAI_BASE_URL}; sandbox: ${executor.isolation}`);
    for (const [i, scenario] of scenarios.entries()) {
      const room = `eval-${Date.now().toString(36)}-${i}`;
      rows.push({ scenario: scenario.name, score: await runScenario(client, room, scenario, print) });
      await client.cleanup(room).catch(() => {});
    }
    print("");
    print(formatTable(rows));
    return rows;
  } finally {
    await worker.stop();
    await executor.close();
    removeDirs(sandboxRoot, workerDir);
  }
}

/** How long the one look at the model may take before it counts as unreachable. */
const MODEL_CHECK_TIMEOUT_MS = 5_000;

/** The endpoint answers before any scenario runs: one that cannot be reached, or refuses the key, would fail them all. */
async function checkModelReachable(baseUrl: string, apiKey: string | undefined): Promise<void> {
  if (!URL.canParse(baseUrl)) throw new EvalSetupError(`OPENAI_BASE_URL is not a URL (got "${baseUrl.slice(0, 60)}")`);
  const problem = await modelEndpointProblem(baseUrl, apiKey, MODEL_CHECK_TIMEOUT_MS);
  if (problem) throw new EvalSetupError(problem);
}

function removeDirs(...dirs: string[]): void {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

/** Who a message is from, as a bot sends it. */
function speaker(p: Person | undefined): { userId?: string; userName?: string } {
  return p ? { userId: p.id, userName: p.name } : {};
}

async function runScenario(client: WorkerClient, room: string, scenario: Scenario, print: (line: string) => void) {
  print("");
  print(`== ${scenario.name}`);
  let answer: MessageResponse;
  try {
    for (const line of scenario.setup ?? []) {
      const { text, from } = typeof line === "string" ? { text: line, from: undefined } : line;
      print(`setup:  ${from ? `${from.name}: ` : ""}${text}`);
      await client.message(room, { text, ...speaker(from) });
    }
    print(`asked:  ${scenario.asker ? `${scenario.asker.name}: ` : ""}${scenario.ask}`);
    answer = await client.message(room, { text: scenario.ask, ...speaker(scenario.asker) });
  } catch (err) {
    const message = err instanceof DuetError ? `${err.code}: ${err.message}` : (err as Error).message;
    print(`error:  ${message}`);
    return { usedTags: false, shape: "error" as const, commands: [], pass: false, problems: [`the turn failed (${message})`] };
  }
  const score = scoreAnswer(scenario, { explanation: answer.explanation ?? answer.reply, runs: answer.runs, skipped: answer.skipped });
  print(`tags:   ${score.usedTags ? "yes" : `no (${score.shape})`}`);
  for (const run of answer.runs) print(`ran:    ${run.cmd}  -> ${run.error ?? `exit ${run.exitCode}`}`);
  print(`answer: ${(answer.explanation ?? answer.reply).replace(/\n/g, "\n        ")}`);
  print(`result: ${score.pass ? "pass" : `FAIL: ${score.problems.join("; ")}`}`);
  return score;
}

async function main(): Promise<void> {
  try {
    const rows = await runEval(process.env, (line) => console.log(line));
    process.exitCode = rows.every((r) => r.score.pass) ? 0 : 1;
  } catch (err) {
    console.error(`pnpm eval: ${(err as Error).message}`);
    process.exitCode = 2;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
