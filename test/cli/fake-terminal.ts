import { EventEmitter } from "node:events";
import { PassThrough, Readable, Writable } from "node:stream";
import type { CliIo } from "../../scripts/duet-cli.ts";
import type { Stack } from "../helpers/stack.ts";

/**
 * A terminal for `runCli` against `stack`: everything printed (stdout and stderr in
 * the order written), a way to wait for some text, and a Ctrl-C key. `input` is
 * what is typed, line by line, as `duet chat` reads it from a pipe.
 */
export function fakeTerminal(stack: Stack, input: readonly string[] = []) {
  let printed = "";
  const changed = new EventEmitter();
  const sink = () =>
    new Writable({
      write(chunk, _enc, done) {
        printed += String(chunk);
        changed.emit("change");
        done();
      },
    });
  const interrupts = new EventEmitter();
  const io: CliIo = {
    env: { DUET_WORKER_URL: stack.workerUrl, DUET_API_TOKEN: stack.token, NO_COLOR: "1" },
    stdin: input.length ? Readable.from(input.map((l) => `${l}\n`)) : new PassThrough(),
    stdout: sink(),
    stderr: sink(),
    onInterrupt: (handler: () => void) => {
      interrupts.on("ctrl-c", handler);
      return () => void interrupts.off("ctrl-c", handler);
    },
  };
  return {
    io,
    printed: () => printed,
    ctrlC: () => interrupts.emit("ctrl-c"),
    until: (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => printed.includes(text) && (changed.off("change", check), resolve());
        changed.on("change", check);
        check();
      }),
  };
}
