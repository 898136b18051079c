import { describeForUser } from "../wire/errors.ts";
import { STOP_WORDS, type StopTurn } from "../words/stop.ts";

/**
 * A Stop button's click, once for every platform: the button names a room, and
 * only a button whose room is the conversation it was clicked in stops
 * anything, so a click can never stop another room's turn. Whoever clicks a
 * real one stops the room's running turn. The answer is the sentence to show
 * the clicker only; the platform shows it privately.
 */
export interface StopClick {
  /** The room the button names. */
  room: string;
  /** Who clicked. */
  user: string;
  /** Whether `room` is this conversation's room (the platform's check: its channel, thread or guild). */
  here: boolean;
}

export async function stopClick(stop: StopTurn, log: (line: string) => void, click: StopClick): Promise<string> {
  if (!click.here) {
    log(`Ignored a Stop click for another room (${click.room.slice(0, 80)})`);
    return STOP_WORDS.notThisRoom;
  }
  try {
    return (await stop(click.room, click.user)).stopped ? STOP_WORDS.stopping : STOP_WORDS.nothingToStop;
  } catch (err) {
    log(`Stop in ${click.room} failed: ${err instanceof Error ? err.message : String(err)}`);
    return STOP_WORDS.failed(describeForUser(err));
  }
}
