import { type Context, Hono } from "hono";
import { describe, expect, it } from "vitest";
import { AppError, RateLimitError } from "../../../core/errors.js";
import type { RateClass } from "../../../core/limits/rate-limits.js";
import type { ApiEnv } from "../../http/context.js";
import { rateLimitHeaders } from "./index.js";

const WINDOW = { "X-RateLimit-Limit": "120", "X-RateLimit-Remaining": "7" };

function app(countUncounted: () => Promise<void>) {
  const a = new Hono<ApiEnv>();
  a.use(async (c, next) => {
    c.set("rateLimitHeaders", null);
    c.set("rateClass", undefined);
    await next();
  });
  a.use(
    rateLimitHeaders({
      countUncounted: async (c) => {
        await countUncounted();
        c.set("rateLimitHeaders", WINDOW);
      },
    }),
  );
  a.onError((error, c) => c.json({ error: (error as AppError).code }, (error as AppError).status as 401));
  const counted = (cls: RateClass) => (c: Context<ApiEnv>) => {
    c.set("rateClass", cls);
    if (cls !== "exempt") c.set("rateLimitHeaders", { "X-RateLimit-Limit": "60" });
    return c.text("ok");
  };
  a.get("/counted", counted("solve"));
  a.get("/health", counted("exempt"));
  a.get("/refused", () => {
    throw new AppError("unauthorized", "no");
  });
  return a;
}

describe("rateLimitHeaders", () => {
  it("puts the counting window's headers on the response", async () => {
    const res = await app(async () => undefined).request("/counted");
    expect(res.headers.get("x-ratelimit-limit")).toBe("60");
  });

  it("counts nothing more for a request its route counted against an unlimited window (no headers to show)", async () => {
    let counted = 0;
    const a = new Hono<ApiEnv>();
    a.use(async (c, next) => {
      c.set("rateLimitHeaders", null);
      await next();
    });
    a.use(rateLimitHeaders({ countUncounted: async () => void counted++ }));
    a.get("/unlimited", (c) => {
      c.set("rateClass", "organization");
      c.set("rateLimitHeaders", {});
      return c.text("ok");
    });
    const res = await a.request("/unlimited");
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    expect(counted).toBe(0);
  });

  it("adds none for an exempt class, and counts nothing there", async () => {
    let counted = 0;
    const res = await app(async () => void counted++).request("/health");
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    expect(counted).toBe(0);
  });

  it("counts a response nothing counted (a refused credential, an unknown route) and carries that window", async () => {
    for (const path of ["/refused", "/nowhere"]) {
      const res = await app(async () => undefined).request(path);
      expect(res.headers.get("x-ratelimit-remaining"), path).toBe("7");
    }
  });

  it("turns an error response into the 429 once that window is spent", async () => {
    const full = async () => {
      throw new RateLimitError({ limit: 120, remaining: 0, resetAt: 1, retryAfter: 9 });
    };
    const res = await app(full).request("/refused");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("9");
    expect(await res.json()).toMatchObject({ error: "rate_limit_exceeded", retry_after: 9 });
  });
});
