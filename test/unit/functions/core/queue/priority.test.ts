import { describe, expect, it } from "vitest";
import { AppError } from "../../../../../functions/core/errors.js";
import { ANTI_STARVATION_EVERY, assertPriorityAllowed, bandPollOrder, priorityBand } from "../../../../../functions/core/queue/priority.js";

describe("priority bands", () => {
  it("maps a priority to its band: above 0 high, 0 normal, below 0 low", () => {
    expect([100, 1, 0, undefined, -1, -100].map(priorityBand)).toEqual(["high", "high", "normal", "normal", "low", "low"]);
  });

  it("polls high first, but every Nth receive starts with a lower band, alternating low and normal", () => {
    const firsts = Array.from({ length: 4 * ANTI_STARVATION_EVERY }, (_, i) => bandPollOrder(i + 1)[0]);
    expect(firsts.filter((b) => b === "high")).toHaveLength(3 * ANTI_STARVATION_EVERY);
    expect(firsts.filter((b) => b === "low")).toHaveLength(2);
    expect(firsts.filter((b) => b === "normal")).toHaveLength(2);
    // Within any 2N consecutive receives each lower band is polled first at least once.
    for (let start = 1; start <= 2 * ANTI_STARVATION_EVERY; start++) {
      const window = Array.from({ length: 2 * ANTI_STARVATION_EVERY }, (_, i) => bandPollOrder(start + i)[0]);
      expect(window).toContain("low");
      expect(window).toContain("normal");
    }
    for (let i = 1; i <= 20; i++) expect([...bandPollOrder(i)].sort()).toEqual(["high", "low", "normal"]);
  });

  it("priority above 0 needs admin or owner; 0 and below are open to every role", () => {
    expect(() => assertPriorityAllowed(50, "solver")).toThrow(AppError);
    expect(() => assertPriorityAllowed(1, "viewer")).toThrow(/admin/);
    expect(() => assertPriorityAllowed(50, "admin")).not.toThrow();
    expect(() => assertPriorityAllowed(100, "owner")).not.toThrow();
    expect(() => assertPriorityAllowed(0, "solver")).not.toThrow();
    expect(() => assertPriorityAllowed(-100, "solver")).not.toThrow();
  });
});
