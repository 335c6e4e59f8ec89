import type { Hono } from "hono";
import { createApp } from "../../functions/api/app.js";
import type { ApiDeps, ApiEnv } from "../../functions/api/http/context.js";
import type { Principal } from "../../functions/core/auth/service.js";
import { loadConfig } from "../../functions/core/config.js";
import { unauthorized } from "../../functions/core/errors.js";
import { RateLimiter } from "../../functions/core/limits/rate-limits.js";
import { createLogger } from "../../functions/core/logger.js";
import { InlineModelWork } from "../../functions/core/model-work/model-work.js";
import type { ConsumeResult, CounterStore, WindowSpec } from "../../functions/core/limits/counters.js";

/** Fixed-window counters in memory, with the store's semantics (all windows or none; 0 = unlimited). */
export class MemoryCounters implements Pick<CounterStore, "consume"> {
  readonly counts = new Map<string, number>();
  async consume(scope: string, { windows, nowMs, amount = 1 }: { windows: WindowSpec[]; nowMs: number; amount?: number }): Promise<ConsumeResult> {
    const keyed = windows.map((w) => {
      const index = Math.floor(nowMs / 1000 / w.seconds);
      return { w, key: `${scope}|${w.name}|${index}`, resetAt: (index + 1) * w.seconds };
    });
    const allowed = keyed.every(({ w, key }) => w.limit <= 0 || (this.counts.get(key) ?? 0) + amount <= w.limit);
    if (allowed) for (const { key } of keyed) this.counts.set(key, (this.counts.get(key) ?? 0) + amount);
    return {
      allowed,
      windows: keyed.map(({ w, key, resetAt }) => {
        const count = this.counts.get(key) ?? 0;
        return {
          name: w.name,
          seconds: w.seconds,
          limit: w.limit,
          count,
          remaining: w.limit > 0 ? Math.max(0, w.limit - count) : Number.POSITIVE_INFINITY,
          resetAt,
        };
      }),
    };
  }
}

/** A request init with `Authorization: Bearer <token>` added. */
export const as = (token: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
});

export const principalOf = (role: Principal["role"], kind: Principal["kind"] = "api_key"): Principal => ({
  kind,
  userId: `usr_${role}`,
  orgId: "org_test",
  role,
  keyId: kind === "api_key" ? `key_${role}` : null,
});

/**
 * The app over fakes, for route tests in process (`app.request(...)`): real admission, rate limiting
 * (counters in memory) and error mapping; credentials are bearer tokens named after their role
 * (`viewer`, `solver`, `admin`, `owner`, and `session-<role>` for sessions); every other service is
 * what `services` gives, and a service a test did not give throws when a route reaches it.
 */
export function fakeApp(services: Partial<ApiDeps> = {}, env: Record<string, string> = {}): { app: Hono<ApiEnv>; deps: ApiDeps; counters: MemoryCounters } {
  const config = loadConfig({ ...env });
  const counters = new MemoryCounters();
  const clock = { now: () => Date.now() };
  const base: Partial<ApiDeps> = {
    config,
    clock,
    logger: createLogger("test"),
    startedAtMs: Date.now(),
    clientIp: () => "192.0.2.1",
    // Optional: absent here (as in Lambda), so the metrics middleware awaits its flush instead of calling a fake.
    inBackground: undefined,
    limiter: new RateLimiter(counters, config),
    // Compiles and file reads on the calling thread, as in a Lambda: the real work, no thread to fake.
    modelWork: new InlineModelWork(),
    metrics: { recordRequest: () => undefined, flushIfDue: async () => undefined } as unknown as ApiDeps["metrics"],
    auth: {
      authenticate: async (credential: string | null) => {
        const m = credential ? /^(session-)?(viewer|solver|admin|owner)$/.exec(credential) : null;
        if (!m) throw unauthorized();
        return principalOf(m[2] as Principal["role"], m[1] ? "session" : "api_key");
      },
      /** The fake instance's operator token. */
      isOperator: (credential: string | null) => credential === "operator-token",
    } as unknown as ApiDeps["auth"],
    ...services,
  };
  const deps = new Proxy(base, {
    get(target, prop) {
      if (prop in target) return target[prop as keyof ApiDeps];
      return new Proxy(
        {},
        {
          get(_t, method) {
            return () => {
              throw new Error(`service ${String(prop)}.${String(method)} is not faked in this test`);
            };
          },
        },
      );
    },
  }) as ApiDeps;
  return { app: createApp(deps), deps, counters };
}
