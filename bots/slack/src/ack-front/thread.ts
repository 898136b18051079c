import type { AddressInfo } from "node:net";
import { parentPort, workerData } from "node:worker_threads";
import type { FromFront, FrontSettings, ToFront } from "./protocol.ts";
import { createFrontServer } from "./server.ts";

/**
 * The ack front's thread (started by `AckFront`): serves the public port, so
 * Slack's events are acknowledged by an event loop that does nothing else,
 * and slash commands and clicks are answered by it as soon as the main thread
 * has acked them.
 * A stop closes the port, lets open requests finish (past the grace period
 * their connections are closed), then says `stopped`: every event acked
 * before it has been handed over, since messages arrive in order.
 */

const settings = workerData as FrontSettings;
const main = parentPort!;
const send = (message: FromFront) => main.postMessage(message);

const front = createFrontServer(settings, send, (level, line) => send({ kind: "log", level, line }));
// A port in use ends the thread with that error, which the main thread reports.
front.server.on("error", (err) => {
  throw err;
});
front.server.listen(settings.port, settings.host, () => send({ kind: "listening", port: (front.server.address() as AddressInfo).port }));

main.on("message", (message: ToFront) => {
  if (message.kind === "answer") return front.answer(message.id, message.answer);
  const force = setTimeout(() => front.server.closeAllConnections(), settings.graceMs);
  front.server.close(() => {
    clearTimeout(force);
    front.close();
    send({ kind: "stopped" });
    main.close();
  });
});
