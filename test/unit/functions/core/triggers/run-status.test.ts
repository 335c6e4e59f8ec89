import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RunStatusSchema, SPEC_RUN_STATUSES } from "../../../../../functions/core/triggers/schemas.js";

describe("run statuses", () => {
  it("are the spec's, plus only what docs/decisions.md documents as ours", () => {
    const decisions = readFileSync(path.resolve(import.meta.dirname, "../../../../../docs/decisions.md"), "utf8");
    const extras = RunStatusSchema.options.filter((s) => !(SPEC_RUN_STATUSES as readonly string[]).includes(s));
    expect(extras).toEqual(["running"]);
    for (const extra of extras) expect(decisions).toMatch(new RegExp(`\\*\\*\`${extra}\`\\*\\*[^]*not\\s+among the spec's values`));
  });
});
