export { LatestThrottle, realTimers, type ThrottleOptions, type Timers } from "./throttle.ts";
export { applyLiveEvent, emptyLiveAnswer, liveRunViews, type LiveAnswer, type LiveEvent, type LiveRun, type LiveRunView } from "./live-answer.ts";
export { pageChanges, pagesOf, type PageChanges } from "./pages.ts";
export { streamingVar } from "./streaming-config.ts";
export { CHANNEL_MESSAGE_INTERVAL_MS, ChannelPace, PACE_HOLD_MAX_MS, type ChannelPaceOptions, type SharedSlots } from "./channel-pace.ts";
