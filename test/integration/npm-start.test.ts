import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { startNpmStart, stopProcessGroup } from "../e2e/target.js";
import { machineHas } from "../support/machine.js";

/**
 * The README's first command: `npm start` sets up the solvers (the set-up `npm test` runs first),
 * serves /api/v2/health, prints an API key that works and the solvers it found — every one of the five,
 * HiGHS native, where the set-up could install them — and Ctrl-C stops everything it started. How long
 * it takes to be healthy is measured by `npm run bench -- timings`; here it is waited for (generously).
 */
describe("npm start", () => {
  it("answers /api/v2/health, prints a working key, and stops cleanly on Ctrl-C", async () => {
    const s = await startNpmStart();
    let descendants: number[] = [];
    try {
      const me = await fetch(`${s.url}/api/v2/auth/me`, { headers: { authorization: `Bearer ${s.key}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { role: string }).role).toBe("owner");
      expect(s.output()).toMatch(/solvers:\n(\s+\w+\s+(available|not available).*\n){5}/);
      expect(s.output()).toMatch(/^\[setup\] /m); // prestart ran the set-up
      const listed = (name: string) => new RegExp(`^\\s+${name}\\s+(available.*|not available.*)$`, "m").exec(s.output())?.[1] ?? "";
      expect(listed("jaos")).toMatch(/^available/);
      if (machineHas("python_solvers")) {
        expect(listed("scip")).toMatch(/^available\s+SCIP \d/);
        expect(listed("highs")).toMatch(/^available\s+HiGHS .*native/);
      }
      if (machineHas("cbc")) expect(listed("cbc")).toMatch(/^available\s+CBC \d/);
      if (machineHas("glpsol")) expect(listed("glpk")).toMatch(/^available\s+GLPK \d/);
      // Everything it started, in any process group (a solve's child leads a group of its own).
      await new Promise((r) => setTimeout(r, 3000)); // the workers have started their standby children
      descendants = descendantsOf(s.child.pid!);
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
    const alive = () => processTable().filter((p) => descendants.includes(p.pid) && p.stat[0] !== "Z");
    for (let i = 0; i < 50 && alive().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toEqual([]);
  }, 300_000);
});

function processTable(): { pid: number; ppid: number; stat: string; args: string }[] {
  return execFileSync("ps", ["-eo", "pid=,ppid=,stat=,args="], { encoding: "utf8" })
    .split("\n")
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), stat: m[3]!, args: m[4]! }));
}

function descendantsOf(root: number): number[] {
  const table = processTable();
  const found = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of table) if (found.has(p.ppid) && !found.has(p.pid)) grew = found.add(p.pid) !== null;
  }
  return [...found].filter((pid) => pid !== root);
}
