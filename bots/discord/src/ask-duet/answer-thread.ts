import { ASK_ABOUT_WORDS } from "@duet/shared";
import { DiscordAPIError, type Message, type ThreadChannel } from "discord.js";
import type { Logger } from "../deps.ts";

/** Discord: "A thread has already been created for this message" (started by someone meanwhile). */
const THREAD_EXISTS = 160004;

/**
 * The thread an answer about `message` goes in: the thread the message is in,
 * else the thread already started on it, else a new one named for the
 * question. Null when Discord refuses to start one (already logged).
 */
export async function answerThread(message: Message<true>, question: string, log: Logger): Promise<ThreadChannel | null> {
  if (message.channel.isThread()) return message.channel;
  if (message.thread) return message.thread;
  try {
    return await message.startThread({ name: ASK_ABOUT_WORDS.threadName(question) });
  } catch (err) {
    // A thread on a message has the message's id.
    if (err instanceof DiscordAPIError && err.code === THREAD_EXISTS) {
      const started = await message.client.channels.fetch(message.id).catch(() => null);
      if (started?.isThread()) return started;
    }
    log.warn(`could not start a thread on message ${message.id}: ${String(err)}`);
    return null;
  }
}
