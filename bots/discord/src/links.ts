import { MARKDOWN_LINK, outsideCode } from "@duet/shared";

/**
 * Discord unfurls every address in a message into a preview card; the
 * model's links (already named by their host, cleanModelText) are written
 * `[label](<url>)`, which Discord shows as the same link without a card.
 */
export function withoutPreviews(text: string): string {
  return outsideCode(text, (part) => part.replace(MARKDOWN_LINK, (_, label: string, url: string) => `[${label}](<${url}>)`));
}
