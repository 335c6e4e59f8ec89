import { KNAPSACK } from "./models.js";
import type { Api } from "./test-stack.js";

/**
 * Builder documents and triggers for tests: a 0-1 knapsack small enough that every solver answers in
 * milliseconds. Items a..d weigh 2, 3, 4, 5 and are worth 3, 4, 5, 6: the best value is 7 at capacity 5,
 * 9 at capacity 7, 12 at capacity 9.
 */
export const KNAPSACK_SOURCE = KNAPSACK;

export const KNAPSACK_DATA = {
  ITEMS: ["a", "b", "c", "d"],
  weight: { a: 2, b: 3, c: 4, d: 5 },
  value: { a: 3, b: 4, c: 5, d: 6 },
  capacity: 5,
};

export const KNAPSACK_BEST: Record<number, number> = { 5: 7, 7: 9, 9: 12 };

export async function createKnapsackDocument(api: Api, solver = "cbc"): Promise<{ documentId: string; versionId: string }> {
  const res = await api.post("/api/v2/documents", {
    name: "knapsack",
    model: { kind: "jmodel", source: KNAPSACK_SOURCE, data: KNAPSACK_DATA },
    solver_name: solver,
  });
  if (res.status !== 201) throw new Error(`document not created: ${res.status} ${res.text}`);
  return { documentId: res.body.id, versionId: res.body.version_id };
}

export async function createTrigger(api: Api, body: Record<string, unknown>): Promise<{ id: string; secret: string; body: any }> {
  const res = await api.post("/api/v2/triggers", { name: "test trigger", ...body });
  if (res.status !== 201) throw new Error(`trigger not created: ${res.status} ${res.text}`);
  return { id: res.body.id, secret: res.body.trigger_secret, body: res.body };
}

/** Polls `read` until `done` holds (or throws after `timeoutMs`). */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 30_000, everyMs = 100 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(value).slice(0, 800)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const FINAL_RUN_STATUSES = ["completed", "failed", "validation_failed"];
