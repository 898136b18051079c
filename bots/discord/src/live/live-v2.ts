import { ANSWER_NOTES } from "@duet/shared";
import type { ComponentsStyle } from "../config.ts";
import { pagesOfGroups, v2Message } from "../render-v2.ts";
import { CLASSIC_LIVE, type LiveLayout, liveRunLines, liveText } from "./live-message.ts";

/**
 * A live answer as Components V2 messages: the text so far in one display,
 * each command's line in its own below a separator, and the Stop button in
 * the container of the last message; past 4,000 characters it goes on in
 * more V2 messages, as the classic one does past 2,000.
 */
export const V2_LIVE: LiveLayout = {
  pages(answer, stop) {
    const pages = pagesOfGroups([[liveText(answer)], liveRunLines(answer)]);
    const groups = pages[0].length ? pages : [[[ANSWER_NOTES.working]]];
    return groups.map((g, i) => {
      const msg = v2Message({ groups: g, files: [], rows: i === groups.length - 1 ? [stop] : [] });
      return { content: "", components: msg.components ?? [], v2: true };
    });
  },
};

export const liveLayout = (style: ComponentsStyle): LiveLayout => (style === "v2" ? V2_LIVE : CLASSIC_LIVE);
