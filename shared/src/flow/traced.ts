import { type AttributeValue, errorName, type FlowTracing, NO_SPANS, Span } from "../trace/span.ts";
import { traceRef } from "../trace/traceparent.ts";
import type { Reply } from "./reply.ts";
import type { ChatSurface, LiveView } from "./surface.ts";

export type { FlowTracing };

/**
 * An ask as a trace in a bot: its span (under the platform event's, when the
 * front end made one), the Worker call's span whose `traceparent` the room
 * joins, and a span for each post, edit and upload. The error a person is
 * shown ends with the trace's ref, so the operator finds the whole turn.
 */

/**
 * Handles a platform event (a Slack message, a Discord mention) under its
 * span, the root of the turn's trace: failed with the error's name (never its
 * text) when the handling throws, ended and sent however it goes.
 */
export async function underEventSpan(tracing: FlowTracing | undefined, name: string, attributes: Record<string, AttributeValue>, work: (span: Span) => Promise<void>): Promise<void> {
  const span = new Span(tracing?.sink ?? NO_SPANS, name, null, { kind: "server", attributes });
  try {
    await work(span);
  } catch (err) {
    span.fail(errorName(err));
    throw err;
  } finally {
    span.end();
    tracing?.flush();
  }
}

/** The span of one ask: a child of the platform event's span when there is one, else a new trace. */
export function askSpan(tracing: FlowTracing | undefined, parent: Span | undefined, room: string): Span {
  const attributes = { "gen_ai.conversation.id": room };
  return parent ? parent.child("duet.ask", { attributes }) : new Span(tracing?.sink ?? NO_SPANS, "duet.ask", null, { kind: "server", attributes });
}

/** An error reply with the trace's ref at its end (`… (ref 4bf92f35)`); any other reply as it is. */
export function withRef(reply: Reply, traceId: string): Reply {
  return reply.kind === "error" ? { ...reply, text: `${reply.text} (${traceRef(traceId)})` } : reply;
}

/** Runs `work` as a span under `span`; the span is failed with the error's name (never its text) when it throws. */
function timed<T>(span: Span, name: string, work: () => Promise<T>): Promise<T> {
  return span.within(name, () => work(), { kind: "client" });
}

/** The surface, each of its posts, edits and uploads a span under `span`. */
export function tracedSurface(surface: ChatSurface, span: Span): ChatSurface {
  const traced: ChatSurface = {
    ...surface,
    post: (reply) => timed(span, "chat.post", () => surface.post(reply)),
    edit: (ref, reply) => timed(span, "chat.edit", () => surface.edit(ref, reply)),
    postPrivate: (reply) => timed(span, "chat.post_private", () => surface.postPrivate(reply)),
    showProgress: () => surface.showProgress(),
  };
  if (surface.live) {
    const live = surface.live.bind(surface);
    traced.live = (onPosted, question): LiveView => {
      const view = live(onPosted, question);
      return { update: (answer) => view.update(answer), finish: (reply, ended) => timed(span, "chat.live.finish", () => view.finish(reply, ended)) };
    };
  }
  if (surface.files) {
    const files = surface.files;
    traced.files = { platform: files.platform, maxBytes: files.maxBytes, send: (list, comment, after) => timed(span, "chat.upload", () => files.send(list, comment, after)) };
  }
  if (surface.queued) traced.queued = surface.queued.bind(surface);
  return traced;
}
