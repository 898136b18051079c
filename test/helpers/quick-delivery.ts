/**
 * The Worker's delivery times for tests of bots that die mid-delivery (production: 15 s each). An
 * answer unconfirmed for half a second is offered in the outbox's feed, and an answer handed to a bot
 * is that bot's alone for 3 s: a test of a bot SIGKILLed while it held one waits 3 s for the lease to
 * lapse, not 15. 3 s is still longer than a bot takes to post and confirm the short answers these tests
 * deliver, and the bots renew what they hold at a third of the lease the Worker's hold answers.
 */
export const QUICK_DELIVERY = { DUET_DELIVERY_GRACE_MS: "500", DUET_DELIVERY_LEASE_MS: "3000" } as const;
