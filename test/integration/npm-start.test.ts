import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { startNpmStart, stopProcessGroup } from "../e2e/target.js";

/**
 * The README's first command: `npm start` serves /api/v2/health within 10 s, prints an API key that
 * works and the solvers it found, and Ctrl-C stops everything it started.
 */
describe("npm start", () => {
  it("answers /api/v2/health within 10 s, prints a working key, and stops cleanly on Ctrl-C", async () => {
    const s = await startNpmStart();
    try {
      expect(s.msToHealthy, s.output()).toBeLessThan(10_000);
      const me = await fetch(`${s.url}/api/v2/auth/me`, { headers: { authorization: `Bearer ${s.key}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { role: string }).role).toBe("owner");
      expect(s.output()).toMatch(/solvers:\n(\s+\w+\s+(available|not available).*\n){5}/);
    } finally {
      await stopProcessGroup(s.child);
    }
    expect(s.child.exitCode ?? 0).toBe(0);
    // Nothing it started is left running: no worker, no Python host, no solver. (An exited process the
    // system has not reaped yet, "<defunct>", holds nothing but its number: it does not count.)
    const running = () =>
      execFileSync("ps", ["-eo", "pgid,stat,args"], { encoding: "utf8" })
        .split("\n")
        .filter((l) => l.trim().startsWith(`${s.child.pid} `) && !/\sZ\S*\s/.test(l));
    for (let i = 0; i < 50 && running().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(running()).toEqual([]);
  });
});
