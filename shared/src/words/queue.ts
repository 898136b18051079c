import { ROOM_QUEUE_MAX } from "../wire/limits.ts";

/**
 * What a person whose question waits behind others is told, once, when the
 * room takes it: the room answers one question at a time, and without this
 * the wait is silent (only the progress indicator shows).
 */

/** `ahead`: the requests before theirs in the room, the one being answered included. */
export function queuedNote(ahead: number): string {
  const others = ahead === 1 ? "1 question is" : `${ahead} questions are`;
  return `⏳ ${others} ahead of yours in this conversation. Your answer will come here when it is your turn.`;
}

/**
 * What a person is told when the room's line is full (ROOM_QUEUE_MAX waiting):
 * one line, with the bound, and no "try again in a moment", since the line
 * drains at about an answer a second.
 */
export function fullLineNote(max = ROOM_QUEUE_MAX): string {
  return `This conversation already has ${max} questions waiting, the most it holds. Ask again once some of them are answered.`;
}
