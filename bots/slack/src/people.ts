import type { SlackOut } from "./slack-api.ts";

/** How long a display name is trusted: renames show up within the hour, and one lookup per person an hour is cheap (users.info is Tier 4). */
export const NAME_TTL_MS = 60 * 60 * 1000;
/** Most names kept; past it the oldest goes first. */
export const NAMES_KEPT = 5_000;

/** A user mention in Slack's text: `<@U123>` or `<@U123|label>`. */
const USER_MENTION = /<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g;

/**
 * People's display names, from users.info, cached per workspace. A failed
 * lookup (no `users:read` scope, an unknown user) gives null and is not
 * cached, so the next ask tries again; the ask goes on without the name.
 */
export class PeopleNames {
  private readonly names = new Map<string, { name: string | null; until: number }>();

  constructor(
    private readonly out: Pick<SlackOut, "displayName">,
    private readonly now: () => number = Date.now,
  ) {}

  async name(team: string, user: string): Promise<string | null> {
    const key = `${team}/${user}`;
    const kept = this.names.get(key);
    if (kept && kept.until > this.now()) return kept.name;
    const name = await this.out.displayName(user);
    if (name === null) return null;
    this.names.delete(key);
    this.names.set(key, { name, until: this.now() + NAME_TTL_MS });
    if (this.names.size > NAMES_KEPT) this.names.delete(this.names.keys().next().value as string);
    return name;
  }

  /** Slack text with each user mention written `<@U123|Name>`, so the plain text the Worker gets says `@Name`. */
  async withNames(team: string, text: string): Promise<string> {
    const ids = [...new Set([...text.matchAll(USER_MENTION)].map((m) => m[1]))];
    const names = new Map(await Promise.all(ids.map(async (id) => [id, await this.name(team, id)] as const)));
    return text.replace(USER_MENTION, (whole, id: string) => {
      const name = names.get(id);
      return name ? `<@${id}|${name.replace(/[<>|]/g, "")}>` : whole;
    });
  }
}
