import type { GuardedAction, Permit } from "@duet/shared";
import type { Logger, webApi } from "@slack/bolt";
import type { AccessRule } from "../config.ts";
import { slackErrorCode, withRetryAfter } from "../slack-api.ts";

/**
 * Who may run, approve, change the policy and reset, from SLACK_ALLOW_*: listed
 * people, and the members of listed user groups (usergroups.users.list, kept
 * for a minute so a busy channel does not ask Slack on every click, and fresh
 * enough that someone removed from a group loses access soon).
 */

/** How long a user group's members are trusted before Slack is asked again. */
export const GROUP_CACHE_MS = 60_000;

export class SlackAccess {
  private readonly members = new Map<string, { users: Set<string>; at: number }>();

  constructor(
    private readonly rules: Record<GuardedAction, AccessRule>,
    private readonly client: webApi.WebClient,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** The Permit for one person: null when they may, else who may in Slack's mention markup. */
  permit(userId: string): Permit {
    return async (action) => {
      const rule = this.rules[action];
      if (!rule || rule.users.includes(userId)) return null;
      for (const group of rule.groups) if ((await this.groupMembers(group)).has(userId)) return null;
      return whoMay(rule);
    };
  }

  private async groupMembers(group: string): Promise<Set<string>> {
    const cached = this.members.get(group);
    if (cached && this.now() - cached.at < GROUP_CACHE_MS) return cached.users;
    try {
      const res = await withRetryAfter(() => this.client.usergroups.users.list({ usergroup: group }), this.logger, "usergroups.users.list");
      const users = new Set(res.users ?? []);
      this.members.set(group, { users, at: this.now() });
      return users;
    } catch (err) {
      // Slack did not answer: the members last seen count, else nobody; the next check asks again.
      this.logger.warn(`usergroups.users.list ${group} failed: ${slackErrorCode(err)}; its members are refused for now`);
      return cached?.users ?? new Set();
    }
  }
}

/** "<@U1>, <@U2> or members of <!subteam^S1>": Slack renders each as a name. */
function whoMay(rule: { users: string[]; groups: string[] }): string {
  const names = [...rule.users.map((u) => `<@${u}>`), ...rule.groups.map((g) => `members of <!subteam^${g}>`)];
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}
