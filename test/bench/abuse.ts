/**
 * `npm run bench -- abuse [rounds]`: the times of issue 25's attacks that the abuse suite (test/abuse)
 * replays, as ratios measured side by side in one run, never absolute pass/fail times.
 *
 * For each attack, rounds of: the attack, then its plain twin (the same route with an ordinary request),
 * each with /health probed one request after another while it is in flight. Columns:
 *  - attack / plain: the attack's time over its twin's (medians). The stated ceiling depends on what
 *    the service does with the attack: refused before any work (the body is measured, the length checked,
 *    a range measured before it is built) → at most CEILING_REFUSED × the plain request; built up to a
 *    cap and stopped there → at most CEILING_AT_CAP × the largest request the caps allow ("at the cap"),
 *    measured in the same run;
 *  - /health during / idle: the median /health answered while the attack was in flight over the idle
 *    service's median (ceiling CEILING_HEALTH: the event loop kept answering), and the slowest during
 *    over the slowest of the idle service's 50 (shown, no ceiling: on a shared machine one slow answer is
 *    the scheduler's).
 */
import type { AbuseStack } from "../abuse/support.js";
import { GRID_MODEL, SIZED_MODEL, selfSignedUpTenant, startAbuseStack, streamedPost, wideMps } from "../abuse/support.js";
import { median, table } from "./_stats.js";

const CEILING_REFUSED = 3;
const CEILING_AT_CAP = 1.5;
const CEILING_HEALTH = 5;

interface Timed {
  ms: number;
  status: number;
  healthMs: number[];
}

/** Runs `send`, probing /health one request after another while it is in flight. */
async function timed(baseUrl: string, send: () => Promise<number>): Promise<Timed> {
  let done = false;
  const healthMs: number[] = [];
  const started = performance.now();
  const sending = send().finally(() => {
    done = true;
  });
  const probing = (async () => {
    while (!done) {
      const t = performance.now();
      await (await fetch(`${baseUrl}/api/v2/health`)).arrayBuffer();
      if (!done) healthMs.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  const status = await sending;
  const ms = performance.now() - started;
  await probing;
  return { ms, status, healthMs };
}

interface Case {
  name: string;
  /** "refused": the attack is refused before the work; "cap": built up to a cap. */
  kind: "refused" | "cap";
  attack: () => Promise<number>;
  /** The twin: an ordinary request to the same route (refused), or the largest the caps allow (cap). */
  twin: () => Promise<number>;
}

const status = (res: Response) => res.arrayBuffer().then(() => res.status);

async function cases(stack: AbuseStack): Promise<Case[]> {
  const { api } = await selfSignedUpTenant(stack);
  const key = { authorization: `Bearer ${api.token}` };
  const json = { "content-type": "application/json" };
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${stack.url}${path}`, { method: "POST", headers: { ...json, ...headers }, body }).then(status);
  const doc = async (source: string, data: unknown) =>
    (await api.post("/api/v2/documents", { name: "b", model: { kind: "jmodel", source, data } })).body.id as string;
  const sized = await doc(SIZED_MODEL, { n: 3 });
  const grid = await doc(GRID_MODEL, { n: 1, m: 1 });
  const execute = (id: string, overrides: unknown) => post(`/api/v2/models/${id}/execute`, JSON.stringify({ override_data: overrides }), key);
  const preview = (text: string) => post("/api/v2/solve/import/preview?format=mps", text, { ...key, "content-type": "text/plain" });
  const deep = `{"override_data": {"x": ${"[".repeat(20_000)}1${"]".repeat(20_000)}}}`;
  return [
    {
      name: "password reset, a@ + 60,000 dots",
      kind: "refused",
      attack: () => post("/api/v2/auth/password-reset", JSON.stringify({ email: `a@${".".repeat(60_000)}@` })),
      twin: () => post("/api/v2/auth/password-reset", JSON.stringify({ email: "nobody@example.test" })),
    },
    {
      name: "fire, override_data 20,000 deep",
      kind: "refused",
      attack: () => post("/api/v2/triggers/trg_x/fire", deep, { authorization: "Bearer inc_trg_guess" }),
      twin: () => post("/api/v2/triggers/trg_x/fire", '{"override_data": {"x": [1]}}', { authorization: "Bearer inc_trg_guess" }),
    },
    {
      name: "600 MB body",
      kind: "refused",
      attack: () => streamedPost(stack.url, "/api/v2/auth/password-reset", 600 * 1024 * 1024).then((r) => r.status),
      twin: () => post("/api/v2/auth/password-reset", JSON.stringify({ email: "nobody@example.test" })),
    },
    {
      name: "execute, n = 6,000,000",
      kind: "refused",
      attack: () => execute(sized, { n: 6_000_000 }),
      twin: () => execute(sized, { n: 3 }),
    },
    {
      name: "preview, 23 MB MPS",
      kind: "refused",
      attack: () =>
        streamedPost(stack.url, "/api/v2/solve/import/preview?format=mps", 23 * 1024 * 1024, { headers: { ...key, "content-type": "text/plain" } }).then(
          (r) => r.status,
        ),
      twin: () => preview(wideMps(10)),
    },
    {
      name: "execute, 1,000 × 1,000 grid",
      kind: "cap",
      attack: () => execute(grid, { n: 1000, m: 1000 }),
      // 316 × 316 = 99,856 variables: the largest grid the default cap (100,000) allows.
      twin: () => execute(grid, { n: 316, m: 316 }),
    },
    {
      name: "preview, 130,000 columns",
      kind: "cap",
      attack: () => preview(wideMps(130_000)),
      twin: () => preview(wideMps(99_999)),
    },
  ];
}

export default async function bench(args: string[]): Promise<void> {
  process.env.LOG_LEVEL ??= "ERROR";
  const rounds = Math.max(1, Number(args[0] ?? 3));
  const stack = await startAbuseStack({
    LOG_LEVEL: "ERROR",
    INSTANCE_RATE_LIMIT_PER_MINUTE: "0",
    INSTANCE_RATE_LIMIT_PER_DAY: "0",
    MODELS_EXECUTE_RATE_LIMIT_PER_MINUTE: "0",
    MODELS_EXECUTE_RATE_LIMIT_PER_DAY: "0",
    AUTH_PASSWORD_RESET_RATE_LIMIT_PER_HOUR: "0",
    CREDITS_INITIAL_GRANT: "100000000",
  });
  try {
    const idle: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await (await fetch(`${stack.url}/api/v2/health`)).arrayBuffer();
      idle.push(performance.now() - t);
    }
    const idleHealth = median(idle);
    const idleSlowest = Math.max(...idle);
    const rows: (string | number)[][] = [];
    for (const c of await cases(stack)) {
      const attacks: Timed[] = [];
      const twins: Timed[] = [];
      for (let r = 0; r < rounds; r++) {
        attacks.push(await timed(stack.url, c.attack));
        twins.push(await timed(stack.url, c.twin));
      }
      const ratio = median(attacks.map((a) => a.ms)) / median(twins.map((t) => t.ms));
      const during = attacks.flatMap((a) => a.healthMs);
      const healthRatio = during.length > 0 ? median(during) / idleHealth : 0;
      const ceiling = c.kind === "refused" ? CEILING_REFUSED : CEILING_AT_CAP;
      rows.push([
        c.name,
        [...new Set(attacks.map((a) => a.status))].join("/"),
        median(attacks.map((a) => a.ms)),
        median(twins.map((t) => t.ms)),
        ratio,
        `≤ ${ceiling}${c.kind === "cap" ? " (at cap)" : ""}`,
        during.length,
        healthRatio,
        Math.max(0, ...during) / idleSlowest,
        ratio <= ceiling && healthRatio <= CEILING_HEALTH ? "yes" : "NO",
      ]);
    }
    console.log(
      `\nissue 25 attacks, ${rounds} rounds each, one local stack; idle /health median ${idleHealth.toFixed(1)} ms, slowest of 50 ${idleSlowest.toFixed(1)} ms\n`,
    );
    console.log(
      table(["attack", "status", "attack ms", "twin ms", "attack / twin", "ceiling", "/health during", "p50 / idle p50", "max / idle max", "within"], rows),
    );
    console.log(
      `\n(ceiling for /health: its median during the attack ≤ ${CEILING_HEALTH}× the idle median; the twin of a "cap" attack is the largest request the caps allow)`,
    );
  } finally {
    await stack.stop();
  }
}
