import { declaredLength, fetchFromSource, type IncomingFile, type SourceHosts } from "@duet/shared";

/**
 * Files attached to a message or a slash command, fetched from Discord's CDN
 * as soon as they arrive: their URLs are signed and expire (about a day), and
 * only Discord's own https hosts are read (files/source.ts checks redirects).
 * No token goes with them; the signature in the URL is the permission.
 */

export const DISCORD_CDN_HOSTS = ["cdn.discordapp.com", "media.discordapp.net"] as const;

/** The fields of a Discord attachment Duet reads (discord.js's Attachment has them). */
export interface DiscordAttachment {
  name: string;
  size: number;
  url: string;
}

export function discordSources(origins: readonly string[]): SourceHosts {
  return { platform: "Discord", hosts: DISCORD_CDN_HOSTS, origins };
}

export function incomingFiles(attachments: readonly DiscordAttachment[], src: SourceHosts): IncomingFile[] {
  return attachments.map((a) => ({
    name: a.name,
    bytes: a.size,
    async open(signal: AbortSignal) {
      const res = await fetchFromSource(a.url, src, {}, signal);
      return { body: res.body!, bytes: declaredLength(res) };
    },
  }));
}
