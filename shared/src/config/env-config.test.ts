import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ConfigError, intVar, numberVar, optionalText, parseEnv, presentEnv } from "./env-config.ts";

const schema = z.object({
  PORT: intVar("PORT", 8080, 1, 65_535),
  NAME: optionalText,
  MODE: z.enum(["a", "b"], { error: "MODE must be a or b" }).default("a"),
  URL: z.string({ error: "is required" }),
});

describe("environment config helpers", () => {
  it("applies defaults, treating empty values as unset", () => {
    expect(parseEnv(schema, { PORT: "", NAME: "  ", URL: "x" })).toEqual({ PORT: 8080, NAME: undefined, MODE: "a", URL: "x" });
    expect(parseEnv(schema, { PORT: "9", MODE: "b", URL: "x" })).toMatchObject({ PORT: 9, MODE: "b" });
  });

  it("stops with one line naming the variable", () => {
    expect(() => parseEnv(schema, { PORT: "80a", URL: "x" }, "svc misconfigured")).toThrow(
      new ConfigError("svc misconfigured: PORT must be an integer from 1 to 65535"),
    );
    expect(() => parseEnv(schema, { MODE: "c", URL: "x" })).toThrow("MODE must be a or b");
    expect(() => parseEnv(schema, {})).toThrow("URL: is required");
  });

  it("reads decimals within bounds and names the variable otherwise", () => {
    const temp = z.object({ T: numberVar("T", 0.2, 0, 2) });
    expect(parseEnv(temp, {})).toEqual({ T: 0.2 });
    expect(parseEnv(temp, { T: "0.7" })).toEqual({ T: 0.7 });
    for (const bad of ["hot", "2.5", "-1", "Infinity"]) expect(() => parseEnv(temp, { T: bad })).toThrow("T must be a number from 0 to 2");
  });

  it("keeps non-string values such as Worker bindings", () => {
    const binding = { get() {} };
    expect(presentEnv({ B: binding, E: "" })).toEqual({ B: binding });
  });
});
