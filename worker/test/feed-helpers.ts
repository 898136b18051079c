import { api } from "./helpers.ts";

/** One read of a platform's delivery feed, kept to `room`'s items (other tests' rooms share the feed). */
export async function readFeed<Item extends { roomId: string }>(platform: string, room: string, waitMs = 0): Promise<{ status: number; items: Item[] }> {
  const res = await api(`/api/deliveries/${platform}?waitMs=${waitMs}`);
  const body = (await res.json()) as { items: Item[] };
  return { status: res.status, items: body.items.filter((i) => i.roomId === room) };
}

/**
 * Reads the feed until `room`'s items show up, for up to 40 s. A read waits
 * only while no room is listed, and other tests' rooms may stay listed, so a
 * read that came back at once is followed by a short pause.
 */
export async function feedUntilItems<Item extends { roomId: string }>(platform: string, room: string): Promise<Item[]> {
  const deadline = Date.now() + 40_000;
  while (Date.now() < deadline) {
    const { items } = await readFeed<Item>(platform, room, 2_000);
    if (items.length) return items;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no item of ${room} reached the ${platform} feed`);
}
