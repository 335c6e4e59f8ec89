import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONSOLE_ASSETS, CONSOLE_CSP } from "../../../../../functions/api/console/page.js";
import { bundleConsole, CONSOLE_MODULE, renderConsoleModule } from "../../../../../scripts/build-console.js";
import { fakeApp } from "../../../../support/fake-api.js";

const { app } = fakeApp();

describe("the web console is served by the API from its own bundle", () => {
  it("is the bundle of console/ as it is now (regenerate with npm run console)", async () => {
    expect(readFileSync(CONSOLE_MODULE, "utf8")).toBe(renderConsoleModule(await bundleConsole()));
  });

  it("serves /console as one document under a strict policy that loads only this origin's assets and holds no credential", async () => {
    for (const path of ["/console", "/console/"]) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(res.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
      expect(res.headers.get("x-ratelimit-limit"), "static files are not counted against a rate window").toBeNull();
      const html = await res.text();
      // The empty data: icon keeps the browser from asking for /favicon.ico (a 404 in the console).
      const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((s) => s !== "data:,");
      expect(sources.length).toBe(2);
      for (const s of sources) expect(s).toMatch(/^\/console\/assets\/console\.[0-9a-f]{12}\.(js|css)$/);
      expect(html, "no inline script").not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html).not.toMatch(/<style|style=|Bearer|api_key|token/i);
    }
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
  });

  it("serves each asset with its type, cached for good under its content-addressed name; an unknown name is 404", async () => {
    expect(CONSOLE_ASSETS.size).toBe(2);
    for (const asset of CONSOLE_ASSETS.values()) {
      const res = await app.request(`/console/assets/${asset.name}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(asset.contentType);
      expect(res.headers.get("cache-control")).toContain("immutable");
      expect(await res.text()).toBe(asset.body);
    }
    expect((await app.request("/console/assets/console.000000000000.js")).status).toBe(404);
  });

  it("bundles nothing that would load from another origin at run time", () => {
    for (const asset of CONSOLE_ASSETS.values())
      expect(asset.body).not.toMatch(/(?:src|href)\s*=\s*["']https?:|import\(["']https?:|@import\s+url\(["']?https?:/);
  });
});
