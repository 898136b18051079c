import { answerConfirmed, answerStats } from "./serve-parent.ts";
import { countConfirms, countWorkerTraffic } from "./worker-connections.ts";

/**
 * Loaded with `--import` ahead of a built bot (`duet-bot.js slack|discord`, the
 * very process `pnpm start:*` runs), so the benchmark can ask it for its heap
 * and Worker traffic. The bot itself is unchanged: readiness is read from its
 * output and it is stopped with SIGTERM, as in production.
 */
const workerUrl = process.env.DUET_WORKER_URL ?? "http://127.0.0.1:8787";
answerStats(countWorkerTraffic(workerUrl));
answerConfirmed(countConfirms(workerUrl));
// The IPC channel must not keep a stopped bot alive.
process.channel?.unref();
