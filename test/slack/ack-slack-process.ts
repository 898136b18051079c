import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Slack's side of an ack, from a process of its own (`ack-slack-rule.ts`):
 * what it sees does not depend on this process's event loop, which the bot
 * under test shares with the fakes.
 */

export interface Delivery {
  url: string;
  /** The event's JSON (or a form body, with `contentType`), signed by the Slack process as it sends it. */
  body: string;
  /** Default: application/json, as Slack sends events. */
  contentType?: string;
  secret: string;
  /** When to send it, in ms after the Slack process starts. */
  atMs: number;
}

export interface Outcome {
  /** The delivery's place in the list given. */
  index: number;
  /** The first delivery's status, or the error's name and code ("TimeoutError": no answer within Slack's 3 s). */
  first: number | string;
  /** How many times Slack delivered it again. */
  retries: number;
  /** Whether one of the deliveries got a 200: Slack counts the event as delivered. */
  acked: boolean;
  /** The body of the answer to the first delivery ("" when it had none or there was no answer). */
  text: string;
}

const RULE = fileURLToPath(new URL("./ack-slack-rule.ts", import.meta.url));
const ARGS = ["--import", import.meta.resolve("tsx"), RULE];

/** The outcomes in the order of the deliveries; throws when one is missing. */
function inOrder(lines: string, count: number, stderr: string): Outcome[] {
  const outcomes: Outcome[] = [];
  for (const line of lines.split("\n").filter(Boolean)) {
    const outcome = JSON.parse(line) as Outcome;
    outcomes[outcome.index] = outcome;
  }
  if (outcomes.filter(Boolean).length !== count) throw new Error(`the Slack process did not finish every delivery: ${stderr || lines}`);
  return outcomes;
}

/** Delivers and returns the outcomes, running nothing else in this process meanwhile: its event loop waits until Slack is done. */
export function deliverHoldingThisThread(deliveries: Delivery[]): Outcome[] {
  const child = spawnSync(process.execPath, ARGS, { input: JSON.stringify(deliveries), encoding: "utf8", timeout: 60_000 });
  return inOrder(child.stdout, deliveries.length, child.stderr);
}

/** Delivers while this process goes on; `each` hears of each outcome as Slack learns it. */
export function deliver(deliveries: Delivery[], each: (outcome: Outcome) => void = () => {}): Promise<Outcome[]> {
  const child = spawn(process.execPath, ARGS, { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let partial = "";
  child.stdout.on("data", (d) => {
    stdout += d;
    const lines = (partial + d).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines.filter(Boolean)) each(JSON.parse(line) as Outcome);
  });
  child.stderr.on("data", (d) => (stderr += d));
  child.stdin.end(JSON.stringify(deliveries));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", () => {
      try {
        resolve(inOrder(stdout, deliveries.length, stderr));
      } catch (err) {
        reject(err);
      }
    });
  });
}
