import { z } from "zod";

/** `DUET_STREAMING`: `on` (default) shows answers as they happen where the platform allows, `off` posts them whole. */
export const streamingVar = z.enum(["on", "off"], { error: "DUET_STREAMING must be on or off" }).default("on");
