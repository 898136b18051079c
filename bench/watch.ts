import { STOP_PREFIX } from "@duet/discord";
import type { RestCall } from "../test/fakes/discord/index.ts";
import type { FakeDiscord } from "../test/fakes/discord/index.ts";
import type { FakeSlack } from "../test/fakes/slack/index.ts";
import type { Arrivals } from "./arrivals.ts";

/**
 * Turns what the fake platforms receive into arrivals. The fakes run in this
 * process, so the time is read when the fake has handled the bot's request,
 * on the same clock as the event's departure.
 */

const DONE_REACTIONS = new Set(["white_check_mark", "warning"]);

/**
 * Slack: `react:<channel>:<ts>:<name>`, `done:<channel>:<ts>` (✅ or ⚠️), `post:<channel>:<thread_ts>`, `resp:<response_url id>`,
 * `home:<user>:<n>` (the nth App Home view published for them),
 * and `text:<marker>` for the first accepted call whose arguments hold an awaited marker.
 */
export function watchSlack(slack: FakeSlack, arrivals: Arrivals): () => void {
  let calls = 0;
  const homes = new Map<string, number>();
  let responses = 0;
  let closed = false;
  // waitFor re-runs the probe synchronously after every change the fake makes; it never "finds" anything until closed.
  void slack
    .waitFor(
      () => {
        const now = performance.now();
        for (; calls < slack.calls.length; calls++) {
          const { method, args, ok } = slack.calls[calls];
          // Only what Slack accepted is visible (a refused stream or a 429 shows nothing).
          if (ok) arrivals.textSeen(() => JSON.stringify(args), now);
          if (method === "reactions.add") {
            arrivals.arrive(`react:${args.channel}:${args.timestamp}:${args.name}`, now);
            if (DONE_REACTIONS.has(String(args.name))) arrivals.arrive(`done:${args.channel}:${args.timestamp}`, now);
          } else if (method === "views.publish" && ok) {
            // The nth Home view published for a person.
            const n = (homes.get(String(args.user_id)) ?? 0) + 1;
            homes.set(String(args.user_id), n);
            arrivals.arrive(`home:${args.user_id}:${n}`, now);
          } else if (method === "chat.postMessage" || method === "chat.startStream") {
            // A live answer first shows as a stream; a whole one (DUET_STREAMING=off) as a post.
            arrivals.arrive(`post:${args.channel}:${args.thread_ts}`, now);
          }
        }
        for (; responses < slack.responses.length; responses++) arrivals.arrive(`resp:${slack.responses[responses].id}`, now);
        return closed;
      },
      "benchmark watch",
      2 ** 31 - 1,
    )
    .catch(() => undefined);
  return () => {
    closed = true;
  };
}

/** A live Discord answer carries the Stop button until its final edit takes it away. */
const hasStop = (body: unknown) => JSON.stringify((body as { components?: unknown } | undefined)?.components ?? []).includes(STOP_PREFIX);

/**
 * Discord: `defer:<interaction id>`, `edit:<interaction token>` (the first edit of the deferred reply),
 * `final:<interaction token>` (its first edit without a Stop button: the end state of an answer that fits
 * one message; a longer live answer's earlier pages lose the button too),
 * `typing:<channel>`, `reply:<message id>`, `text:<marker>` for the first successful call whose body
 * holds an awaited marker; failed calls are counted.
 */
export function watchDiscord(fake: FakeDiscord, arrivals: Arrivals): { failures: () => number; close: () => void } {
  let failures = 0;
  const onCall = (c: RestCall) => {
    const now = performance.now();
    if (c.status >= 400) failures += 1;
    else if (c.method !== "GET") arrivals.textSeen(() => JSON.stringify(c.body ?? null), now);
    const p = c.path.split("/");
    if (c.route === "POST /interactions/:id/:token/callback") arrivals.arrive(`defer:${p[2]}`, now);
    else if (c.route === "PATCH /webhooks/:app/:token/messages/:message" && p[5] === "@original") {
      arrivals.arrive(`edit:${p[3]}`, now);
      if (c.status < 400 && !hasStop(c.body)) arrivals.arrive(`final:${p[3]}`, now);
    }
    else if (c.route === "POST /channels/:id/typing") arrivals.arrive(`typing:${p[2]}`, now);
    else if (c.route === "POST /channels/:id/messages" && c.body?.message_reference?.message_id) arrivals.arrive(`reply:${c.body.message_reference.message_id}`, now);
  };
  fake.world.events.on("call", onCall);
  return { failures: () => failures, close: () => fake.world.events.off("call", onCall) };
}
