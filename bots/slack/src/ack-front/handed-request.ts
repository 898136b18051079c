import { type App, type Logger, ReceiverMultipleAckError } from "@slack/bolt";
import { acknowledgeFailure } from "../ack-failure.ts";
import { formBody } from "./body.ts";
import type { Answer, HandedRequest } from "./protocol.ts";

/**
 * A slash command or click the ack front holds open, processed by bolt on the
 * main thread as its HTTP receiver would process it (same body, retry fields,
 * no custom properties), with an `ack` whose response goes back to the front
 * as the request's HTTP answer, written as bolt's receiver writes it. As in
 * that receiver (without `processBeforeResponse`, which the bot does not set),
 * the answer goes at the ack, not when the handler ends; a second ack throws;
 * a failure before the ack is answered 200 and logged (`acknowledgeFailure`).
 * An ack that never comes is the front's to answer (`PendingAnswers`).
 */
export async function processHandedRequest(app: App, request: HandedRequest, answer: (answer: Answer) => void, logger: Logger): Promise<void> {
  let answered = false;
  const ack = async (response?: unknown) => {
    if (answered) throw new ReceiverMultipleAckError();
    answered = true;
    answer(contentAnswer(response));
  };
  try {
    await app.processEvent({ body: formBody(request.body), ack, retryNum: request.retryNum, retryReason: request.retryReason, customProperties: {} });
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    if (!acknowledgeFailure(error, answered, logger)) return;
    answered = true;
    answer({ status: 200, body: "" });
  }
}

/** bolt's answer for an ack's response (HTTPModuleFunctions.buildContentResponse): none is an empty 200, text is sent as is, anything else as JSON. */
export function contentAnswer(response: unknown): Answer {
  if (!response) return { status: 200, body: "" };
  if (typeof response === "string") return { status: 200, body: response };
  return { status: 200, contentType: "application/json", body: JSON.stringify(response) };
}
