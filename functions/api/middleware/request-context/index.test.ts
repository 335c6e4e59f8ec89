import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../../core/logger.js";
import { addLogContext } from "../../../core/observability/log-context.js";
import type { ApiEnv, RequestDeps } from "../../http/context.js";
import { acceptableRequestId, requestContext } from "./index.js";

function app(headerName?: string) {
  const a = new Hono<ApiEnv>();
  let n = 0;
  a.use(requestContext({ deps: {} as RequestDeps, logger: createLogger("test"), generateId: () => `fresh_${++n}`, headerName }));
  a.get("/", (c) => c.json({ id: c.get("requestId"), principal: c.get("principal"), headers: c.get("rateLimitHeaders") }));
  return a;
}

describe("requestContext", () => {
  it("keeps the client's id when it is 1–255 word characters, - or =, and echoes it", async () => {
    const res = await app().request("/", { headers: { "x-request-id": "abc-123_=" } });
    expect(res.headers.get("x-request-id")).toBe("abc-123_=");
    expect(await res.json()).toEqual({ id: "abc-123_=", principal: null, headers: null });
  });

  it("makes a fresh id for none, an empty, a too long or an odd one", async () => {
    for (const sent of [undefined, "", "a".repeat(256), "a b", "a/b", "é"]) {
      const res = await app().request("/", { headers: sent === undefined ? {} : { "x-request-id": sent } });
      expect(res.headers.get("x-request-id"), String(sent)).toBe("fresh_1");
    }
    expect(acceptableRequestId("a".repeat(255))).toBe(true);
  });

  it("reads and echoes another header when told", async () => {
    const res = await app("X-Correlation-Id").request("/", { headers: { "x-correlation-id": "corr1" } });
    expect(res.headers.get("x-correlation-id")).toBe("corr1");
  });

  it("tags every line logged while serving the request with its id and, once known, its organization, whichever logger writes it", async () => {
    const lines: Record<string, unknown>[] = [];
    const serviceLogger = createLogger("some-service"); // a store's or a service's logger, not the request's
    serviceLogger.setLogLevel("INFO");
    const write = (line: string) => lines.push(JSON.parse(line));
    (serviceLogger as unknown as { console: { info(l: string): void } }).console = { info: write };
    const a = new Hono<ApiEnv>();
    a.use(requestContext({ deps: {} as RequestDeps, logger: createLogger("test"), generateId: () => "req_1" }));
    a.get("/", async (c) => {
      serviceLogger.info("before authentication");
      addLogContext({ org_id: "org_7" });
      await new Promise((r) => setTimeout(r, 5));
      serviceLogger.info("after, in later async work");
      return c.json({});
    });
    await a.request("/");
    serviceLogger.info("outside any request");
    expect(lines.map((l) => [l.message, l.request_id, l.org_id])).toEqual([
      ["before authentication", "req_1", undefined],
      ["after, in later async work", "req_1", "org_7"],
      ["outside any request", undefined, undefined],
    ]);
  });
});
