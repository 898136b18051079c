import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLEANUP_EVENTS } from "./cleanup.ts";
import { BOT_SCOPES } from "./oauth/install-options.ts";

/**
 * The manifest is what an admin installs: it must ask for exactly the events the
 * code listens to and the scopes those and the Web API calls need, no more.
 */

const manifest = readFileSync(new URL("../manifest.yaml", import.meta.url), "utf8");

/** The `- item` lines under a `key:` line (the manifest's simple YAML lists). */
function listUnder(key: string): string[] {
  const lines = manifest.split("\n");
  const start = lines.findIndex((l) => l.trim() === `${key}:`);
  expect(start, `${key} in manifest.yaml`).toBeGreaterThanOrEqual(0);
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const item = /^\s*-\s+(\S+)\s*$/.exec(line);
    if (!item) break;
    items.push(item[1]);
  }
  return items;
}

describe("manifest.yaml", () => {
  it("subscribes to exactly the events the bot handles", () => {
    expect(listUnder("bot_events").sort()).toEqual(
      ["app_mention", "message.im", "member_joined_channel", "app_home_opened", "assistant_thread_started", "assistant_thread_context_changed", ...CLEANUP_EVENTS].sort(),
    );
  });

  it("asks for exactly the scopes the bot uses", () => {
    expect(listUnder("bot").sort()).toEqual(
      [
        "app_mentions:read", // app_mention
        "assistant:write", // the agent pane: assistant.threads.setSuggestedPrompts, setTitle
        "channels:read", // channel_archive, channel_deleted
        "chat:write", // chat.postMessage, assistant.threads.setStatus
        "commands", // /duet
        "files:read", // url_private_download of files shared with Duet
        "files:write", // files.getUploadURLExternal, files.completeUploadExternal
        "groups:read", // group_archive, group_deleted
        "channels:history", // conversations.replies: the message an Ask Duet shortcut names
        "groups:history", // the same in private channels
        "im:history", // message.im
        "reactions:write", // reactions.add
        "usergroups:read", // usergroups.users.list (SLACK_ALLOW_* user groups)
      ].sort(),
    );
  });

  it("declares the Home tab, the agent pane and the Ask Duet message shortcut the bot registers", () => {
    expect(manifest).toMatch(/home_tab_enabled: true/);
    expect(manifest).toMatch(/\n  assistant_view:\n(?:\s+#.*\n)*\s+assistant_description: \S/);
    expect(manifest).toMatch(/shortcuts:\n\s+- name: Ask Duet\n\s+type: message\n\s+callback_id: ask_duet\n/);
  });

  it("declares /duet, Socket Mode, and interactivity for the Stop button", () => {
    expect(manifest).toMatch(/- command: \/duet\n/);
    expect(manifest).toMatch(/socket_mode_enabled: true/);
    expect(manifest).toMatch(/interactivity:\n(?:\s+#.*\n)*\s+is_enabled: true/);
  });

  it("asks an OAuth install for the manifest's scopes, and the distributed manifest differs only in how it is reached", () => {
    expect([...BOT_SCOPES].sort()).toEqual(listUnder("bot").sort());
    const distributed = readFileSync(new URL("../manifest.distributed.yaml", import.meta.url), "utf8");
    const body = (m: string) => m.slice(m.indexOf("display_information:"));
    expect(distributed).toMatch(/redirect_urls:\n\s+- https:\/\/\S+\/slack\/oauth_redirect\n/);
    expect(distributed).toMatch(/token_rotation_enabled: true/);
    expect(distributed).toMatch(/org_deploy_enabled: true/);
    expect(distributed).toMatch(/socket_mode_enabled: false/);
    const same = (m: string) => body(m).split("\n").filter((l) => !/request_url|url:|redirect_urls|oauth_redirect|_enabled:|#/.test(l)).join("\n");
    expect(same(distributed)).toBe(same(manifest));
  });
});
