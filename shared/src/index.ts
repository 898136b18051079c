export * from "./limits.ts";
export * from "./schemas.ts";
export * from "./room-id.ts";
export * from "./errors.ts";
export * from "./client.ts";
