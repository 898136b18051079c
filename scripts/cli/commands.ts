import { randomUUID } from "node:crypto";
import { DuetError, describeForUser, type WorkerClient } from "@duet/shared";
import { renderAnswer, renderExec, renderHistory, renderReset, type Style } from "./render.ts";

/** What every command needs: the client, how to print, and what to redact. */
export interface CliContext {
  client: WorkerClient;
  style: Style;
  /** The CLI's own token, kept out of anything printed. */
  secrets: readonly string[];
  userId: string;
  baseUrl: string;
  tokenSource: string;
  out(text: string): void;
  err(text: string): void;
}

export type RoomAction =
  | { kind: "ask"; text: string }
  | { kind: "run"; cmd: string }
  | { kind: "history" }
  | { kind: "reset" };

/** Runs one action against a room; prints the answer or one error line. Resolves to the exit code. */
export async function runAction(room: string, action: RoomAction, ctx: CliContext): Promise<number> {
  try {
    switch (action.kind) {
      case "ask": {
        // A fresh key per ask lets the client retry a lost request without running its commands twice.
        const res = await ctx.client.message(room, { text: action.text, userId: ctx.userId, idempotencyKey: `cli-${randomUUID()}` });
        ctx.out(renderAnswer(res, ctx.style, ctx.secrets));
        return 0;
      }
      case "run": {
        const res = await ctx.client.exec(room, { cmd: action.cmd, userId: ctx.userId, idempotencyKey: `cli-${randomUUID()}` });
        ctx.out(renderExec(action.cmd, res, ctx.style, ctx.secrets));
        // Like a shell: the command's own failure is the CLI's failure, so scripts can test it.
        return res.result.exitCode === 0 ? 0 : 1;
      }
      case "history": {
        const res = await ctx.client.history(room);
        ctx.out(renderHistory(room, res.messages, ctx.style, ctx.secrets));
        return 0;
      }
      case "reset": {
        const res = await ctx.client.cleanup(room);
        ctx.out(renderReset(room, res.errors, ctx.style));
        return res.errors?.length ? 1 : 0;
      }
    }
  } catch (err) {
    ctx.err(ctx.style.red(errorLine(err, ctx)));
    return 1;
  }
}

/** describeForUser speaks to chat users; at a terminal the reader is the admin, so say where to look. */
export function errorLine(err: unknown, ctx: Pick<CliContext, "baseUrl" | "tokenSource">): string {
  const line = describeForUser(err);
  if (!(err instanceof DuetError)) return line;
  if (err.code === "worker_unreachable") return `${line} (nothing answers at ${ctx.baseUrl}: is \`pnpm dev\` running?)`;
  if (err.code === "unauthorized") return `${line} (the CLI used the token from ${ctx.tokenSource})`;
  if (err.code === "model_not_configured") return `${line} (\`pnpm dev\` prints how to set one)`;
  return line;
}
