import { afterEach, describe, expect, it } from "vitest";
import { traceAttach, traceMark, traceMerge, traceRequest, traceTake } from "../../../../../functions/core/trace/solve-trace.js";

describe("solve trace", () => {
  afterEach(() => {
    delete process.env.SOLVE_TRACE;
  });

  it("keeps a request's marks under the execution it attaches, with marks merged from another process", async () => {
    process.env.SOLVE_TRACE = "1";
    await traceRequest(async () => {
      await new Promise((r) => setTimeout(r, 1));
      traceAttach("exe_a");
      traceMark("admitted", "exe_a");
      traceMerge("exe_a", { received: 1, solve_start: 2 });
      traceMark("response_out"); // no id: the request's context
    });
    const marks = traceTake("exe_a")!;
    expect(Object.keys(marks).sort()).toEqual(["admitted", "received", "request_in", "response_out", "solve_start"]);
    expect(marks.admitted!).toBeGreaterThanOrEqual(marks.request_in!);
    expect(marks.response_out!).toBeGreaterThanOrEqual(marks.admitted!);
    expect(traceTake("exe_a")).toBeUndefined();
  });

  it("records nothing when SOLVE_TRACE is not 1", async () => {
    await traceRequest(async () => {
      traceAttach("exe_b");
      traceMark("admitted", "exe_b");
    });
    expect(traceTake("exe_b")).toBeUndefined();
  });
});
