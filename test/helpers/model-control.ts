import type { FakeModel } from "../fakes/model.ts";

/**
 * The fake model's controls for a live answer: let a `HOLD:<name>` answer go on,
 * and ask whether a `HANG:<name>` request was aborted (a Stop reached the model).
 */

export const releaseHeld = (model: FakeModel, name: string) => fetch(`${model.url}/_release/${name}`, { method: "POST" });

/** True once the request is aborted; false when it was not within `waitMs`. */
export async function wasAborted(model: FakeModel, name: string, waitMs = 10_000): Promise<boolean> {
  return ((await (await fetch(`${model.url}/_aborted/${name}?waitMs=${waitMs}`)).json()) as { aborted: boolean }).aborted;
}
