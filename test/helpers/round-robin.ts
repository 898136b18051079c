import { request } from "node:http";
import { listen, readBody, type Listening } from "../fakes/http.ts";

/**
 * A load balancer on 127.0.0.1 in front of bot replicas, as a deployment puts
 * one in front of its Slack replicas: each request goes to the next replica in
 * turn, headers and body untouched (Slack's signature covers the raw body). A
 * replica that refuses the connection (killed) is skipped for the next one, as
 * a balancer's health check would. `sentTo` records which replica (its index)
 * took each request, so a test can show a retry landed elsewhere.
 */

export interface RoundRobin extends Listening {
  sentTo: { path: string; replica: number }[];
}

export async function startRoundRobin(replicas: () => string[]): Promise<RoundRobin> {
  const sentTo: RoundRobin["sentTo"] = [];
  let next = 0;

  const forward = (base: string, method: string, path: string, headers: Record<string, string>, body: string) =>
    new Promise<{ status: number; headers: Record<string, string>; body: Buffer } | null>((resolve) => {
      const upstream = request(`${base}${path}`, { method, headers, agent: false }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (c: Buffer) => chunks.push(c));
        answer.on("end", () => {
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(answer.headers)) if (typeof v === "string") out[k] = v;
          resolve({ status: answer.statusCode ?? 502, headers: out, body: Buffer.concat(chunks) });
        });
        answer.on("error", () => resolve(null));
      });
      upstream.on("error", () => resolve(null));
      upstream.end(body || undefined);
    });

  const listening = await listen(async (req, res) => {
    const body = await readBody(req);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && k !== "host" && k !== "connection") headers[k] = v;
    const targets = replicas();
    for (let tried = 0; tried < targets.length; tried++) {
      const replica = next++ % targets.length;
      const answer = await forward(targets[replica], req.method ?? "GET", req.url ?? "/", headers, body);
      if (!answer) continue;
      sentTo.push({ path: req.url ?? "/", replica });
      res.writeHead(answer.status, answer.headers);
      return void res.end(answer.body);
    }
    res.writeHead(502, { "content-type": "text/plain" });
    res.end("no replica answered");
  });
  return { ...listening, sentTo };
}
