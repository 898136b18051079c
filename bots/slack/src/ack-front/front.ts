import { Worker } from "node:worker_threads";
import type { Logger } from "@slack/bolt";
import type { Answer, FromFront, FrontSettings, HandedOver, HandedRequest, ToFront } from "./protocol.ts";

/**
 * The main thread's side of the ack front (`thread.ts`): starts the thread
 * that owns the public port, receives the events it acknowledged and the
 * requests it holds open for an answer, passes the answers back, and stops it.
 *
 * The thread lives and dies with the process: it cannot outlive a main thread
 * that crashed (the process ends with it), so nothing is acknowledged that no
 * one will process; and a thread that dies on its own is reported through
 * `onFatal`, since nothing would serve the port any more.
 */

/** The thread's file in the built bots, beside the bundle that starts it (scripts/build/bundle.ts). */
export const ACK_FRONT_BUNDLE = "ack-front.js";

export interface AckFrontOptions {
  settings: FrontSettings;
  logger: Logger;
  /** Each acknowledged event, in the order the front acknowledged them. */
  onEvent(event: HandedOver): void;
  /** Each slash command or click the front holds open; `answer` is written as its HTTP answer (the first one only). */
  onRequest(request: HandedRequest, answer: (answer: Answer) => void): void;
  /** The thread ended without being asked to. */
  onFatal(err: Error): void;
}

/** The built bundle's sibling file, or from source the TypeScript entry behind tsx's loader. */
function threadScript(): { script: URL | string; eval: boolean } {
  if (!import.meta.url.endsWith(".ts")) return { script: new URL(`./${ACK_FRONT_BUNDLE}`, import.meta.url), eval: false };
  // Node 20 gives a thread none of the process's --import hooks, so from source (tsx, vitest)
  // the thread registers tsx's loader itself before it imports its TypeScript entry.
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = new URL("./thread.ts", import.meta.url).href;
  return { script: `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`, eval: true };
}

export class AckFront {
  private stopping = false;
  private readonly stopped: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    readonly port: number,
    stopped: Promise<void>,
  ) {
    this.stopped = stopped;
  }

  /** Resolves once the thread listens on the port; rejects with the reason it could not (a port in use). */
  static start(options: AckFrontOptions): Promise<AckFront> {
    const { script, eval: isEval } = threadScript();
    // No execArgv of the main thread's (tsx's --import, the bench's --expose-gc): the thread loads only its own code.
    const worker = new Worker(script, { eval: isEval, workerData: options.settings, execArgv: [] });
    let front: AckFront | undefined;
    let markStopped!: () => void;
    const stopped = new Promise<void>((resolve) => (markStopped = resolve));
    return new Promise<AckFront>((resolve, reject) => {
      worker.on("message", (message: FromFront) => {
        switch (message.kind) {
          case "listening":
            front = new AckFront(worker, message.port, stopped);
            resolve(front);
            return;
          case "event":
            options.onEvent(message);
            return;
          case "request":
            options.onRequest(message, (answer) => worker.postMessage({ kind: "answer", id: message.id, answer } satisfies ToFront));
            return;
          case "log":
            options.logger[message.level](message.line);
            return;
          case "stopped":
            markStopped();
            return;
        }
      });
      worker.on("error", (err) => {
        if (!front) reject(err);
        else if (!front.stopping) options.onFatal(new Error(`The ack front failed: ${err.message}`));
      });
      worker.on("exit", (code) => {
        markStopped();
        if (!front) reject(new Error(`The ack front ended before it listened (exit code ${code})`));
        else if (!front.stopping) options.onFatal(new Error(`The ack front ended (exit code ${code}): Slack's requests are no longer served`));
      });
    });
  }

  /** Stops accepting, lets open requests finish, and resolves once every acknowledged event was handed over. */
  async stop(): Promise<void> {
    if (this.stopping) return this.stopped;
    this.stopping = true;
    this.worker.postMessage({ kind: "stop" } satisfies ToFront);
    await this.stopped;
    await this.worker.terminate();
  }
}
