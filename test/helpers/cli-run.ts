import { PassThrough } from "node:stream";
import { runCli } from "../../scripts/duet-cli.ts";
import type { Stack } from "./stack.ts";

/** What one `duet` run did: its exit code and what it printed (each stream trimmed at the end). */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** `duet ...argv` through the CLI's entry point against `worker`, printing whole answers without colour. */
export async function runDuet(worker: Pick<Stack, "workerUrl" | "token">, ...argv: string[]): Promise<CliRun> {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { out: "", err: "" };
  out.on("data", (d) => (chunks.out += d));
  err.on("data", (d) => (chunks.err += d));
  const env = { DUET_WORKER_URL: worker.workerUrl, DUET_API_TOKEN: worker.token, NO_COLOR: "1", DUET_STREAMING: "off", USER: "tester" };
  const code = await runCli(argv, { env, stdin: new PassThrough(), stdout: out, stderr: err });
  return { code, out: chunks.out.trimEnd(), err: chunks.err.trimEnd() };
}
