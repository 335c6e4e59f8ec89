import { describe, expect, it } from "vitest";
import { FinalSignals, type FinalSubscription } from "../../../../../functions/core/executions/final-signals.js";

/** "woken" when next() resolves before a long timeout would and before `settleMs` passes; else "waiting". */
const outcome = (sub: FinalSubscription, settleMs = 50) =>
  Promise.race([sub.next(60_000).then(() => "woken"), new Promise((r) => setTimeout(() => r("waiting"), settleMs))]);

describe("FinalSignals", () => {
  it("wakes a subscriber at a signal for its execution, not at its timeout", async () => {
    const signals = new FinalSignals({ heard: true });
    const sub = signals.subscribe("exe_1");
    setTimeout(() => signals.signal("exe_1"), 5);
    expect(await outcome(sub, 30_000)).toBe("woken");
    sub.close();
  });

  it("keeps a signal that came before next() was called (between the read and the wait), once", async () => {
    const signals = new FinalSignals({ heard: true });
    const sub = signals.subscribe("exe_1");
    signals.signal("exe_1");
    expect(await outcome(sub)).toBe("woken");
    expect(await outcome(sub)).toBe("waiting");
    sub.close();
  });

  it("does not wake a subscriber for another execution, nor after it closed", async () => {
    const signals = new FinalSignals({ heard: true });
    const other = signals.subscribe("exe_1");
    signals.signal("exe_2");
    expect(await outcome(other)).toBe("waiting");
    const closed = signals.subscribe("exe_3");
    closed.close();
    signals.signal("exe_3");
    expect(await outcome(closed)).toBe("waiting");
  });

  it("carries the outcome a worker's own final write made, and a bare signal after it does not lose it", async () => {
    const signals = new FinalSignals({ heard: true });
    const sub = signals.subscribe("exe_1");
    const outcomeWritten = { id: "exe_1", status: "completed" as const, result: { inline: "{}" }, error_message: null };
    signals.signal("exe_1", outcomeWritten);
    signals.signal("exe_1");
    expect(await sub.next(60_000)).toEqual({ outcome: outcomeWritten });
    signals.signal("exe_1");
    expect(await sub.next(60_000)).toEqual({ outcome: null }); // "read it now"
    expect(await sub.next(1)).toBeNull(); // timed out
  });

  it("wakes every subscriber of the execution", async () => {
    const signals = new FinalSignals({ heard: true });
    const a = signals.subscribe("exe_1");
    const b = signals.subscribe("exe_1");
    setTimeout(() => signals.signal("exe_1"), 5);
    expect(await Promise.all([outcome(a, 30_000), outcome(b, 30_000)])).toEqual(["woken", "woken"]);
  });
});
