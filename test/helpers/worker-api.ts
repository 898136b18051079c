import type { Stack } from "./stack.ts";

/** What the Worker answered a call: its status and its JSON body. */
export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** A call to the Worker's HTTP API with its token, as a bot or the CLI makes it; `stack()` is read at each call (it is started in a hook). */
export function workerApi(stack: () => Pick<Stack, "workerUrl" | "token">) {
  return async (method: string, path: string, body?: unknown): Promise<ApiAnswer> => {
    const { workerUrl, token } = stack();
    const res = await fetch(`${workerUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}
