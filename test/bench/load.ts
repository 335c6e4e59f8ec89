/**
 * `npm run bench -- load [seconds per level]`
 *
 * Mixed traffic against the local stack (in-process, loopback, real workers) with autocannon, at
 * concurrency 8, 32 and 128: authenticated reads, plain solves (a small LP, async), comparison
 * launches, trigger fires, health. Prints requests/s and p50/p99 per route and the answers by status.
 * Then checks, and exits non-zero when one fails: every accepted job reached a final state (bounded
 * wait); the daily quota, the credits, each trigger's `total_runs` and `unread_count` equal what the
 * records say; and no limiter admitted more requests in a window than its limit.
 */
import autocannon from "autocannon";
import type { LocalStack } from "../../bin/local/local-stack.js";
import { type Api, startTestStack } from "../support/test-stack.js";
import { table } from "./_stats.js";
import { TINY_LP } from "../support/models.js";

const LEVELS = [8, 32, 128];
const LIMITS = { allPerMinute: 6000, solvePerMinute: 120, firePerMinute: 30, dailySolves: 400 };
const JOB_WAIT_MS = 240_000;

const LP = { ...TINY_LP, name: "load" };

interface RouteSpec {
  name: string;
  /** Share of the level's connections (at least one). */
  share: number;
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Counted against these limiter windows when admitted. */
  windows: ("all" | "solve" | "fire")[];
}

interface Observed {
  route: string;
  status: number;
  atMs: number;
  body: string;
}

interface LevelRow {
  level: number;
  route: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  statuses: string;
}

async function seed(api: Api): Promise<{ triggerId: string; triggerSecret: string }> {
  const doc = await api.post("/api/v2/documents", { name: "load", model: { kind: "problem", problem: LP } });
  if (doc.status !== 201) throw new Error(`seed document: ${doc.status} ${doc.text}`);
  const trigger = await api.post("/api/v2/triggers", { name: "load", document_id: doc.body.id, version_id: doc.body.version_id });
  if (trigger.status !== 201) throw new Error(`seed trigger: ${trigger.status} ${trigger.text}`);
  return { triggerId: trigger.body.id, triggerSecret: trigger.body.trigger_secret };
}

function routes(apiKey: string, trigger: { triggerId: string; triggerSecret: string }): RouteSpec[] {
  const auth = { authorization: `Bearer ${apiKey}` };
  const json = { ...auth, "content-type": "application/json" };
  return [
    { name: "GET me", share: 0.2, method: "GET", path: "/api/v2/auth/me", headers: auth, windows: ["all"] },
    { name: "GET balance", share: 0.1, method: "GET", path: "/api/v2/credits/balance", headers: auth, windows: ["all"] },
    {
      name: "POST solve/async",
      share: 0.2,
      method: "POST",
      path: "/api/v2/solve/async",
      headers: json,
      body: JSON.stringify({ problem: LP }),
      windows: ["all", "solve"],
    },
    {
      name: "POST compare",
      share: 0.15,
      method: "POST",
      path: "/api/v2/solvers/compare",
      headers: json,
      body: JSON.stringify({ solver_names: ["highs", "glpk"], problem: LP }),
      windows: ["all"],
    },
    {
      name: "POST fire",
      share: 0.15,
      method: "POST",
      path: `/api/v2/triggers/${trigger.triggerId}/fire`,
      headers: { authorization: `Bearer ${trigger.triggerSecret}`, "content-type": "application/json" },
      body: "{}",
      windows: ["fire"],
    },
    { name: "GET health", share: 0.2, method: "GET", path: "/api/v2/health", headers: {}, windows: [] },
  ];
}

async function level(stack: LocalStack, specs: RouteSpec[], connections: number, seconds: number, observed: Observed[]): Promise<LevelRow[]> {
  const runs = specs.map((spec) => {
    const started = Date.now();
    let sent = 0;
    const instance = autocannon({
      url: stack.url,
      connections: Math.max(1, Math.round(connections * spec.share)),
      duration: seconds,
      timeout: 30,
      requests: [
        {
          method: spec.method,
          path: spec.path,
          headers: spec.headers,
          body: spec.body,
          onResponse: (status: number, body: string) => {
            sent++;
            observed.push({ route: spec.name, status, atMs: Date.now(), body: spec.windows.length > 0 && status !== 200 ? body : "" });
          },
        },
      ],
    });
    return instance.then((result) => {
      const statuses = Object.entries(result.statusCodeStats ?? {})
        .map(([s, v]) => `${s}:${(v as { count: number }).count}`)
        .join(" ");
      const errors = result.errors + result.timeouts > 0 ? ` errors:${result.errors} timeouts:${result.timeouts}` : "";
      return {
        level: connections,
        route: spec.name,
        requests: result.requests.total,
        rps: result.requests.total / ((Date.now() - started) / 1000),
        p50: result.latency.p50,
        p99: result.latency.p99,
        statuses: statuses + errors,
        sent,
      };
    });
  });
  return Promise.all(runs);
}

export default async function bench(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 6);
  const stack = await startTestStack({
    env: {
      INSTANCE_RATE_LIMIT_PER_MINUTE: String(LIMITS.allPerMinute),
      INSTANCE_RATE_LIMIT_PER_DAY: "0",
      SOLVE_RATE_LIMIT_PER_MINUTE: String(LIMITS.solvePerMinute),
      SOLVE_RATE_LIMIT_PER_DAY: "0",
      TRIGGER_FIRE_RATE_LIMIT_PER_MINUTE: String(LIMITS.firePerMinute),
      INSTANCE_MAX_DAILY_SOLVES: String(LIMITS.dailySolves),
      CREDITS_INITIAL_GRANT: "1000000",
      LOG_LEVEL: "ERROR",
    },
  });
  const failures: string[] = [];
  try {
    const api = stack.api;
    const trigger = await seed(api);
    const specs = routes(stack.apiKey, trigger);
    const observed: Observed[] = [];
    const rows: LevelRow[] = [];
    const startedMs = Date.now();
    for (const c of LEVELS) rows.push(...(await level(stack, specs, c, seconds, observed)));
    console.log(`load: ${seconds} s per level, loopback, the local stack's workers`);
    console.log(
      table(
        ["concurrency", "route", "requests", "req/s", "p50 ms", "p99 ms", "answers by status"],
        rows.map((r) => [r.level, r.route, r.requests, r.rps, r.p50, r.p99, r.statuses]),
      ),
    );
    const serverErrors = observed.filter((o) => o.status >= 500);
    if (serverErrors.length > 0)
      failures.push(`${serverErrors.length} × 5xx (first: ${serverErrors[0]!.route} ${serverErrors[0]!.status} ${serverErrors[0]!.body.slice(0, 200)})`);

    // Quota, credits, total_runs, unread_count against the records.
    const orgId = stack.bootstrap.organizationId;
    // Every accepted job reaches a final state (requests still in flight when a level ended were accepted
    // too, unanswered to autocannon: the records, not the answers, say which jobs exist).
    const deadline = Date.now() + JOB_WAIT_MS;
    const records = async () => {
      const all = await stack.services.table.queryAll<Record<string, any>>({
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": `ORG#${orgId}` },
      });
      const runs = await stack.services.table.queryAll<Record<string, any>>({
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :run)",
        ExpressionAttributeValues: { ":pk": `TRG#${trigger.triggerId}`, ":run": "RUN#" },
      });
      return { all, runs };
    };
    let snapshot = await records();
    const open = (s: typeof snapshot) => [
      ...s.all.filter((i) => String(i.sk).startsWith("EXE#") && ["queued", "running"].includes(i.status)),
      ...s.all.filter((i) => String(i.sk).startsWith("CMP#") && !["completed", "failed", "cancelled"].includes(i.status)),
      ...s.runs.filter((r) => ["queued", "pending", "running"].includes(r.status)),
    ];
    while (open(snapshot).length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      snapshot = await records();
    }
    const stillOpen = open(snapshot);
    if (stillOpen.length > 0)
      failures.push(`${stillOpen.length} jobs not final within ${JOB_WAIT_MS / 1000} s (first: ${stillOpen[0]!.sk} ${stillOpen[0]!.status})`);
    const items = snapshot.all;
    const runs = snapshot.runs;
    const executions = items.filter((i) => String(i.sk).startsWith("EXE#"));
    const comparisons = items.filter((i) => String(i.sk).startsWith("CMP#"));
    const quotaSpent = observed
      .filter((o) => o.status === 403 && o.body.includes("daily_solve_quota_exceeded"))
      .reduce((n, o) => n + Number(JSON.parse(o.body).spent ?? 0), 0);
    const solvesRecorded =
      executions.filter((e) => e.origin?.kind !== "comparison").length + comparisons.reduce((n, c) => n + (c.solver_names?.length ?? 0), 0);
    const usedToday = await stack.services.quota.usedToday(orgId, Date.now());
    const kinds = new Map<string, number>();
    for (const e of executions) kinds.set(e.origin?.kind, (kinds.get(e.origin?.kind) ?? 0) + 1);
    console.log(
      `records: ${executions.length} executions (${[...kinds].map(([k, n]) => `${k} ${n}`).join(", ")}), ${comparisons.length} comparisons, ${runs.length} trigger runs; quota used ${usedToday}, spent by refusals ${quotaSpent}`,
    );
    if (usedToday !== solvesRecorded + quotaSpent)
      failures.push(`daily quota used ${usedToday} ≠ solves recorded ${solvesRecorded} + spent by refusals ${quotaSpent}`);

    const balance = (await api.get("/api/v2/credits/balance")).body.credits_remaining as number;
    const charged =
      executions.reduce((n, e) => n + (e.origin?.kind === "comparison" ? 0 : Number(e.credits_charged ?? 0)), 0) +
      comparisons.reduce((n, c) => n + Number(c.credits_each ?? 0) * (c.solver_names?.length ?? 0), 0);
    if (1_000_000 - balance !== charged) failures.push(`credits spent ${1_000_000 - balance} ≠ charged in records ${charged}`);

    const triggerView = await api.get(`/api/v2/triggers/${trigger.triggerId}`);
    if (triggerView.body.total_runs !== runs.length) failures.push(`trigger total_runs ${triggerView.body.total_runs} ≠ ${runs.length} run records`);

    const unread = (await api.get("/api/v2/notifications/unread-count")).body.unread_count as number;
    // The list pages at 100, so the records are read from the table: every notification of the owner not read.
    const me = (await api.get("/api/v2/auth/me")).body as { id: string };
    const notifications = await stack.services.table.queryAll<Record<string, unknown>>({
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :n)",
      ExpressionAttributeValues: { ":pk": `USER#${me.id}`, ":n": "NTF#" },
    });
    const unreadListed = notifications.filter((n) => n.is_read === false).length;
    if (unread !== unreadListed) failures.push(`unread_count ${unread} ≠ ${unreadListed} unread notification records`);

    // No limiter admitted more than its limit in any window: the windows' counters (one conditional ADD
    // per admitted request) each at most the limit, and as many solves and fires counted as were answered.
    const counters = async (scope: string, prefix: string) => {
      const rows = await stack.services.table.queryAll<Record<string, unknown>>({
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": `LIMIT#${scope}` },
      });
      return rows.flatMap((r) =>
        Object.entries(r)
          .filter(([k]) => k.startsWith(prefix))
          .map(([, v]) => Number(v)),
      );
    };
    const answered = (route: string) => observed.filter((o) => o.route === route && o.status !== 429).length;
    const checks: [string, number[], number, number | null][] = [
      ["all requests per minute", await counters(`ORG#${orgId}`, "all-minute_"), LIMITS.allPerMinute, null],
      ["solves per minute", await counters(`ORG#${orgId}`, "solve-minute_"), LIMITS.solvePerMinute, answered("POST solve/async")],
      ["fires per trigger per minute", await counters(`TRG#${trigger.triggerId}`, "fire-minute_"), LIMITS.firePerMinute, null],
    ];
    for (const [what, windows, limit, expected] of checks) {
      const total = windows.reduce((a, b) => a + b, 0);
      console.log(`limiter ${what}: windows ${windows.join(", ")} (limit ${limit} each)`);
      if (windows.some((n) => n > limit)) failures.push(`limiter ${what}: a window admitted more than ${limit}`);
      // Requests cut off when a level ended were counted but never answered to autocannon.
      if (expected !== null && total < expected) failures.push(`limiter ${what}: counted ${total} < ${expected} answered`);
    }
    const fires = observed.filter((o) => o.route === "POST fire" && o.status === 202).length;
    const firesCounted = (await counters(`TRG#${trigger.triggerId}`, "fire-minute_")).reduce((a, b) => a + b, 0);
    if (fires > firesCounted) failures.push(`limiter fires: ${fires} accepted, only ${firesCounted} counted`);
    if (usedToday > LIMITS.dailySolves) failures.push(`daily quota: ${usedToday} used > ${LIMITS.dailySolves}`);
    console.log(`load: ${observed.length} requests in ${((Date.now() - startedMs) / 1000).toFixed(0)} s`);
  } finally {
    await stack.stop();
  }
  if (failures.length > 0) {
    console.error(`load: invariants failed:\n  ${failures.join("\n  ")}`);
    process.exit(1);
  }
  console.log("load: every invariant holds");
}
