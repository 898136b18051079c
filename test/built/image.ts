import { readFileSync } from "node:fs";

/** bots/Dockerfile as the tests read it: what the image sets and how it starts the bundle. */
const dockerfile = readFileSync(new URL("../../bots/Dockerfile", import.meta.url), "utf8");

/** The `ENV a=b c=d` line(s) of the image's last stage. */
export function imageEnv(): Record<string, string> {
  const runStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
  const env: Record<string, string> = {};
  for (const line of runStage.split("\n").filter((l) => l.startsWith("ENV "))) {
    for (const pair of line.slice(4).trim().split(/\s+/)) {
      const [k, v] = pair.split("=");
      env[k!] = v!;
    }
  }
  return env;
}

/** The image's ENTRYPOINT, as the exec form lists it. */
export const imageEntrypoint = JSON.parse(/^ENTRYPOINT (.+)$/m.exec(dockerfile)![1]!) as string[];
