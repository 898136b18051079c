import { expect, test } from "vitest";
import { runProcess } from "./runner.ts";

// A command Node refuses to start (its argv holds a NUL) fails with a message that
// names what failed, never the command: the executor logs and answers that message.

test("a command that cannot be started fails without quoting the command", async () => {
  const secret = "sk-this-is-a-secret-0123456789abcdef";
  const run = runProcess({ argv: ["/bin/sh", "-c", `echo ${secret}\0`], env: {}, timeoutMs: 5_000, maxOutputBytes: 1024 });
  const message = await run.result.then(
    () => "started",
    (e: Error) => e.message,
  );
  expect(message).toBe("cannot start /bin/sh: ERR_INVALID_ARG_VALUE");
  expect(message).not.toContain(secret);
});
