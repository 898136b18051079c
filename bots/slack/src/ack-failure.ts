import type { Logger } from "@slack/bolt";

/**
 * What the HTTP receiver does when bolt fails on a request: logged, and
 * answered 200 (true) unless it was answered already. Also the rule for the
 * requests the ack front holds (`processHandedRequest`).
 */
export function acknowledgeFailure(error: Error, answered: boolean, logger: Logger): boolean {
  if (answered) {
    logger.error(`A handler failed after the ack: ${error.message}`);
    return false;
  }
  logger.warn(`Acknowledged an event bolt could not process: ${error.message}`);
  return true;
}
