/**
 * `npm run bench -- <name> [args]`: runs test/bench/<name>.ts, whose default export prints its table.
 * Benchmarks report ratios measured side by side in one run, never absolute pass/fail times.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const here = import.meta.dirname;
const available = readdirSync(here)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.startsWith("_"))
  .map((f) => f.replace(/\.ts$/, ""));

const [name, ...args] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- <${available.join("|") || "nothing yet"}> [args]`);
  process.exit(name ? 1 : 0);
}
const mod = (await import(pathToFileURL(path.join(here, `${name}.ts`)).href)) as { default: (args: string[]) => Promise<void> };
await mod.default(args);
