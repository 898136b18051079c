import { onStopSignals } from "@duet/shared/stop-signals";
import { duetHome } from "./config.ts";
import { ConfigError, StartupError, loadConfig, startExecutor } from "./index.ts";
import { chooseToken } from "./token.ts";

/** `pnpm dev:sandbox`: the local sandbox executor, configured from the environment. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const token = chooseToken(process.env, duetHome(process.env));
  if (typeof token === "string") fail(token);
  config = { ...config, token: token.token };
  if (token.from === "open on purpose") {
    console.warn("[sandbox] WARNING: no token (SANDBOX_TOKEN=none-i-know): anyone who can reach this port runs commands in any room's workspace.");
  }
  try {
    const running = await startExecutor(config);
    console.log(`[sandbox] executor listening on ${running.url} (isolation: ${running.isolation}, network: ${running.network}, workspaces in ${running.root}; ${running.limits})`);
    // Closing unmounts every room's disk: the copies of one stop request (a group's
    // SIGTERM, Ctrl-C relayed by npm and tsx) must not cut that short.
    onStopSignals(
      () => void running.close().then(() => process.exit(0)),
      () => {
        console.error("[sandbox] stopping at once: the rooms' disks may stay mounted until the next start");
        process.exit(130);
      },
    );
  } catch (err) {
    if (err instanceof StartupError) fail(err.message);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") fail(`SANDBOX_PORT ${config.port} is already in use on ${config.host}`);
    if (code === "EADDRNOTAVAIL") fail(`SANDBOX_HOST ${config.host} is not an address of this machine`);
    fail(`sandbox executor failed to start: ${(err as Error).message}`);
  }
}

function fail(line: string): never {
  console.error(line);
  process.exit(1);
}

void main();
