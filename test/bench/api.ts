/**
 * `npm run bench -- api [seconds] [concurrency] [--rounds N] [--only overhead|reads]`
 *
 * 1. overhead: the service's median overhead on a plain solve of afiro per solver, beside a direct call
 *    of the same adapter (see _solve-overhead.ts for the columns).
 * 2. reads: requests/s and p50/p99 latency of an authenticated GET beside the same server's
 *    unauthenticated GET /api/v2/health, measured in the same run and interleaved in time slices, so the
 *    ratio is the cost of authentication + rate limiting, not of the machine's mood.
 */
import { startTestStack } from "../support/test-stack.js";
import { enableSolveTrace, solveOverhead } from "./_solve-overhead.js";
import { percentile, table } from "./_stats.js";

interface Result {
  count: number;
  latencies: number[];
  errors: number;
  ms: number;
}

async function load(url: string, headers: Record<string, string>, seconds: number, concurrency: number): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) errors++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { count: latencies.length, latencies, errors, ms: performance.now() - started };
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

export default async function bench(args: string[]): Promise<void> {
  const positional = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));
  const seconds = Number(positional[0] ?? 10);
  const concurrency = Number(positional[1] ?? 8);
  const rounds = Number(option(args, "rounds") ?? 15);
  const only = option(args, "only");
  if (only !== "reads") enableSolveTrace();
  const stack = await startTestStack({
    env: {
      INSTANCE_RATE_LIMIT_PER_MINUTE: "0",
      INSTANCE_RATE_LIMIT_PER_DAY: "0",
      SOLVE_RATE_LIMIT_PER_MINUTE: "0",
      SOLVE_RATE_LIMIT_PER_DAY: "0",
      METRICS_FLUSH_SECONDS: "2",
    },
  });
  try {
    if (only !== "reads") await solveOverhead(stack, rounds);
    if (only !== "overhead") await readLatency(stack, seconds, concurrency);
  } finally {
    await stack.stop();
  }
}

async function readLatency(stack: Awaited<ReturnType<typeof startTestStack>>, seconds: number, concurrency: number): Promise<void> {
  const health = `${stack.url}/api/v2/health`;
  const authed = `${stack.url}/api/v2/credits/balance`;
  const auth = { authorization: `Bearer ${stack.apiKey}` };
  await load(health, {}, 1, concurrency); // warm-up
  await load(authed, auth, 1, concurrency);
  const slices = 4;
  const total = { health: { count: 0, latencies: [] as number[], errors: 0, ms: 0 }, authed: { count: 0, latencies: [] as number[], errors: 0, ms: 0 } };
  for (let i = 0; i < slices; i++) {
    for (const [name, url, headers] of [
      ["health", health, {}],
      ["authed", authed, auth],
    ] as const) {
      const r = await load(url, headers, seconds / slices / 2, concurrency);
      const t = total[name];
      t.count += r.count;
      t.latencies.push(...r.latencies);
      t.errors += r.errors;
      t.ms += r.ms;
    }
  }
  const row = (label: string, r: Result) => {
    const sorted = [...r.latencies].sort((a, b) => a - b);
    return [label, (r.count / r.ms) * 1000, percentile(sorted, 50), percentile(sorted, 99), r.errors];
  };
  const h = row("GET /api/v2/health (public)", total.health);
  const a = row("GET /api/v2/credits/balance (API key)", total.authed);
  console.log(`\n${seconds} s, ${concurrency} concurrent connections, one local stack (dynalite in process)\n`);
  console.log(table(["endpoint", "req/s", "p50 ms", "p99 ms", "errors"], [h, a]));
  console.log(
    `\nratio authenticated/health: throughput ${(Number(a[1]) / Number(h[1])).toFixed(2)}×, p50 latency ${(Number(a[2]) / Number(h[2])).toFixed(2)}×, p99 latency ${(Number(a[3]) / Number(h[3])).toFixed(2)}×`,
  );
  console.log("(the authenticated read pays one rate-limit UpdateItem and one GetItem of the organization; the key lookup is cached)");
}
