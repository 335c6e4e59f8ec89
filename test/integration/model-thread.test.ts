import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TriggerInputError } from "../../functions/core/errors.js";
import { isJModelError } from "../../functions/core/jmodel/index.js";
import { isModelCapExceeded, type ModelCaps } from "../../functions/core/limits/model-caps.js";
import { InlineModelWork, ThreadModelWork } from "../../functions/core/model-work/model-work.js";
import type { ModelTask } from "../../functions/core/model-work/tasks.js";
import { ensureWorkerBuild } from "../../solver-container/build.js";

/** The API's model thread (issue 25, Build 2): the same answers as on the calling thread, off its event loop. */
const CAPS: ModelCaps = { variables: 100_000, constraints: 100_000, nonzeros: 1_000_000 };
const SIZED = "param n; set I := 1..n; var x{I} >= 0; minimize z: sum{i in I} x[i]; s.t. c{i in I}: x[i] + x[(i mod n) + 1] >= 1;";
const compile = (n: number, caps = CAPS): ModelTask => ({ kind: "compile", source: SIZED, data: { n }, overrides: {}, name: "m", caps });

let script: string;
const threads: ThreadModelWork[] = [];
const thread = (options: { heapMb?: number; timeoutMs?: number; maxWaiting?: number } = {}) => {
  const work = new ThreadModelWork({ script, heapMb: options.heapMb ?? 512, timeoutMs: options.timeoutMs ?? 120_000, maxWaiting: options.maxWaiting ?? 16 });
  threads.push(work);
  return work;
};

beforeAll(async () => {
  script = path.join(await ensureWorkerBuild(), "model-thread.js");
});
afterAll(async () => {
  for (const t of threads) await t.close();
});

const outcome = (work: { run: (t: ModelTask) => Promise<unknown> }, task: ModelTask) =>
  work.run(task).then(
    (value) => ({ value, error: null as unknown }),
    (error: unknown) => ({ value: null, error }),
  );

describe("the model thread", () => {
  it("answers the bytes the calling thread would", async () => {
    const inline = await new InlineModelWork().run(compile(50));
    const threaded = await thread().run(compile(50));
    expect(threaded.kind).toBe("compiled");
    if (threaded.kind !== "compiled" || inline.kind !== "compiled") return;
    expect(new TextDecoder().decode(threaded.problem.json)).toBe(new TextDecoder().decode(inline.problem.json));
    expect(threaded.problem.stats).toEqual(inline.problem.stats);
    expect(new TextDecoder().decode(threaded.names!)).toBe(new TextDecoder().decode(inline.names!));
  });

  it("gives back the domain's errors as the same classes: a cap, a compile error, a refused override", async () => {
    const work = thread();
    const cap = await outcome(work, compile(10_000_000));
    expect(isModelCapExceeded(cap.error) && cap.error.cap).toBe("set_elements");
    const bad = await outcome(work, { ...compile(5), data: { n: "five" } } as ModelTask);
    expect(isJModelError(bad.error)).toBe(true);
    const refused = await outcome(work, {
      kind: "run_document",
      modelJson: JSON.stringify({ kind: "jmodel", source: SIZED, data: { n: 3 } }),
      sent: { m: 4 },
      solvers: { version: "auto", chosen: null, available: ["highs"] },
      name: "d",
      caps: CAPS,
    });
    expect(refused.error).toBeInstanceOf(TriggerInputError);
    expect((refused.error as TriggerInputError).fireCode).toBe("trigger.override_unknown_fields");
  });

  it("leaves the event loop free while it compiles: a timer set after the task starts fires before it ends", async () => {
    const work = thread();
    await work.run(compile(10)); // the thread is up
    const order: string[] = [];
    const task = work.run(compile(100_000)).then(() => order.push("compiled"));
    await new Promise((resolve) => setTimeout(resolve, 0));
    order.push("timer");
    await task;
    expect(order).toEqual(["timer", "compiled"]);
  });

  it("refuses a task that outlives its deadline (503), with the time in words", async () => {
    const late = await outcome(thread({ timeoutMs: 50 }), compile(100_000));
    expect(late.error).toMatchObject({ code: "service_unavailable" });
    expect((late.error as Error).message).toMatch(/longer than 0 s|longer than/);
  });

  it("refuses a task past the thread's heap (503), and the next task runs on a new thread", async () => {
    const work = thread({ heapMb: 48 });
    const big = await outcome(work, compile(100_000, { variables: 0, constraints: 0, nonzeros: 0 }));
    expect(big.error).toMatchObject({ code: "service_unavailable" });
    expect((big.error as Error).message).toMatch(/48 MB|stopped|failed/);
    const next = await outcome(work, compile(5));
    expect(next.error).toBeNull();
  });

  it("refuses a task at once (503) when the tasks waiting behind the running one reach the bound", async () => {
    const work = thread({ maxWaiting: 2 });
    const running = outcome(work, compile(50_000));
    const waiting = [outcome(work, compile(5)), outcome(work, compile(5))];
    const refused = await outcome(work, compile(5));
    expect(refused.error).toMatchObject({ code: "service_unavailable" });
    for (const r of await Promise.all([running, ...waiting])) expect(r.error).toBeNull();
  });
});
