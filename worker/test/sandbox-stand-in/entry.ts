// The production Worker, with the stand-in in place of the container-backed Sandbox class.
export { default, DuetAgent } from "../../src/index.ts";
export { ContainerlessSandbox } from "./container-stand-in.ts";
