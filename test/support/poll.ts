import type { Api } from "./test-stack.js";

/** Polls `path` until `done(body)` or the timeout; returns the last body. */
export async function pollUntil<T = any>(
  api: Api,
  path: string,
  done: (body: T) => boolean,
  { timeoutMs = 120_000, everyMs = 100 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get<T>(path);
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${res.text}`);
    if (done(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`timed out waiting on ${path}: ${res.text.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const FINAL = new Set(["completed", "failed", "cancelled"]);
export const isFinal = (body: any): boolean => FINAL.has(body.status);
