import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { RecentRequest } from "../../../core/observability/metrics-store.js";
import type { ApiEnv } from "../../http/context.js";
import { metrics } from "./index.js";

describe("metrics", () => {
  it("records method, route template, final status and duration of every request, then lets the recorder flush", async () => {
    const recorded: RecentRequest[] = [];
    let flushes = 0;
    let t = 0;
    const a = new Hono<ApiEnv>();
    a.use(
      metrics({
        recorder: { recordRequest: (r) => void recorded.push(r), flushIfDue: async () => void flushes++ },
        clock: { now: () => 0 },
        now: () => (t += 12.5),
      }),
    );
    a.onError((_error, c) => c.text("failed", 500));
    // Admission names the route's template (http/admission.ts); a path no route has names none.
    a.get("/items/:id", (c) => {
      c.set("routeTemplate", "/items/:id");
      return c.text("ok");
    });
    a.get("/boom", (c) => {
      c.set("routeTemplate", "/boom");
      throw new Error("boom");
    });
    await a.request("/items/secret_id_42");
    await a.request("/boom");
    await a.request("/no-route/secret_id_43");
    expect(recorded.map((r) => [r.method, r.path, r.status, r.duration_ms])).toEqual([
      ["GET", "/items/:id", 200, 12.5],
      ["GET", "/boom", 500, 12.5],
      ["GET", "(no route)", 404, 12.5],
    ]);
    expect(recorded[0]!.timestamp).toBe("1970-01-01T00:00:00.000Z");
    expect(flushes).toBe(3);
  });

  it("answers without waiting for a flush when given a background runner, which receives the flush", async () => {
    const neverEnding = new Promise<void>(() => undefined);
    const handedOver: Promise<unknown>[] = [];
    const a = new Hono<ApiEnv>();
    a.use(
      metrics({
        recorder: { recordRequest: () => undefined, flushIfDue: () => neverEnding },
        clock: { now: () => 0 },
        inBackground: (work) => void handedOver.push(work),
      }),
    );
    a.get("/ok", (c) => c.text("ok"));
    const res = await a.request("/ok");
    expect(await res.text()).toBe("ok");
    expect(handedOver).toEqual([neverEnding]);
  });
});
