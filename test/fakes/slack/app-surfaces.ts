import { randomBytes } from "node:crypto";
import { envelope, type EventEnvelope } from "./deliver.ts";
import type { FakeSlack } from "./server.ts";

/**
 * The interaction payloads of Slack's app surfaces, as Slack sends them: a
 * message shortcut (`message_action`) from a message's menu, and a modal's
 * submission (`view_submission`) with its fields' values. Post them with
 * postInteraction (signed). And the agent pane's events: a conversation
 * opened (`assistant_thread_started`, with the root message Slack makes for
 * it) and the person moving to another channel with the pane open
 * (`assistant_thread_context_changed`). Post those with postEvent; a message
 * in the conversation is a DM in its thread (directMessageEvent with threadTs).
 */

const triggerId = () => `${Math.floor(Date.now() / 1000)}.${randomBytes(4).readUInt32BE()}.${randomBytes(8).toString("hex")}`;

/** A person picks `callbackId` from the menu of the message `messageTs` in `channel` (which may since have been deleted: pass `text`). */
export function messageShortcut(slack: FakeSlack, input: { channel: string; messageTs: string; callbackId: string; user?: string; text?: string; threadTs?: string }): Record<string, unknown> {
  const user = input.user ?? "U0ALICE";
  const msg = slack.ws.find(input.channel, input.messageTs);
  return {
    type: "message_action",
    token: "legacy-verification-token",
    action_ts: (Date.now() / 1000).toFixed(6),
    team: { id: slack.id.teamId, domain: slack.id.teamName },
    user: { id: user, name: user.toLowerCase(), team_id: slack.id.teamId },
    channel: { id: input.channel, name: "general" },
    is_enterprise_install: false,
    enterprise: null,
    callback_id: input.callbackId,
    trigger_id: triggerId(),
    response_url: slack.responseUrl(input.channel, user),
    message_ts: input.messageTs,
    message: {
      type: "message",
      ts: input.messageTs,
      text: msg?.text ?? input.text ?? "",
      user: msg?.user,
      ...(msg?.thread_ts ?? input.threadTs ? { thread_ts: msg?.thread_ts ?? input.threadTs } : {}),
    },
  };
}

/** The person submits the modal Duet opened last (`slack.ws.modals`), with `values[block][action]` typed in. */
export function viewSubmission(slack: FakeSlack, input: { view: Record<string, any>; values: Record<string, Record<string, string>>; user?: string }): Record<string, unknown> {
  const user = input.user ?? "U0ALICE";
  const values = Object.fromEntries(Object.entries(input.values).map(([block, actions]) => [block, Object.fromEntries(Object.entries(actions).map(([a, v]) => [a, { type: "plain_text_input", value: v }]))]));
  return {
    type: "view_submission",
    team: { id: slack.id.teamId, domain: slack.id.teamName },
    user: { id: user, name: user.toLowerCase(), team_id: slack.id.teamId },
    api_app_id: slack.id.appId,
    token: "legacy-verification-token",
    trigger_id: triggerId(),
    view: { id: `V${randomBytes(5).toString("hex").toUpperCase()}`, team_id: slack.id.teamId, type: "modal", ...input.view, state: { values } },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}

/** The person opens a new conversation in the agent pane of their DM `channel` with Duet, while looking at `viewing`. */
export function paneThreadStarted(slack: FakeSlack, input: { channel: string; user?: string; viewing?: string }): { payload: EventEnvelope; threadTs: string } {
  const user = input.user ?? "U0ALICE";
  // Slack makes the conversation's root message itself, in the person's name.
  const root = slack.ws.add({ channel: input.channel, user, subtype: "assistant_app_thread", text: "New chat", via: "user" });
  return { payload: envelope(slack, paneEvent(slack, "assistant_thread_started", input.channel, root.ts, user, input.viewing)), threadTs: root.ts };
}

/** With the conversation `threadTs` open, the person moves to the channel `viewing`. */
export function paneContextChanged(slack: FakeSlack, input: { channel: string; threadTs: string; viewing: string; user?: string }): EventEnvelope {
  return envelope(slack, paneEvent(slack, "assistant_thread_context_changed", input.channel, input.threadTs, input.user ?? "U0ALICE", input.viewing));
}

function paneEvent(slack: FakeSlack, type: string, channel: string, threadTs: string, user: string, viewing?: string): Record<string, unknown> {
  return {
    type,
    assistant_thread: { user_id: user, channel_id: channel, thread_ts: threadTs, context: viewing ? { channel_id: viewing, team_id: slack.id.teamId, enterprise_id: null } : {} },
    event_ts: slack.ws.nextTs(),
  };
}
