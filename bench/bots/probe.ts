import { answerStats } from "./serve-parent.ts";
import { countWorkerTraffic } from "./worker-connections.ts";

/**
 * Loaded with `--import` ahead of a built bot (`duet-bot.js slack|discord`, the
 * very process `pnpm start:*` runs), so the benchmark can ask it for its heap
 * and Worker traffic. The bot itself is unchanged: readiness is read from its
 * output and it is stopped with SIGTERM, as in production.
 */
answerStats(countWorkerTraffic(process.env.DUET_WORKER_URL ?? "http://127.0.0.1:8787"));
// The IPC channel must not keep a stopped bot alive.
process.channel?.unref();
