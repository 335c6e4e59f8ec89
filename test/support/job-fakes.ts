import type { BlobStore } from "../../functions/core/blob/blob-store.js";
import { isoTime, ManualClock } from "../../functions/core/clock.js";
import { type NewComparison, newComparisonRecord } from "../../functions/core/comparisons/records.js";
import { pendingRow } from "../../functions/core/comparisons/rows.js";
import type { Row } from "../../functions/core/comparisons/schemas.js";
import type { ComparisonRecord } from "../../functions/core/comparisons/store.js";
import { loadConfig } from "../../functions/core/config.js";
import { newExecutionRecord } from "../../functions/core/executions/records.js";
import type { ExecutionRecord } from "../../functions/core/executions/store.js";
import type { HeldLease, LeasePort, Renew, SolvedResult, SolvePort } from "../../functions/core/jobs/ports.js";
import type { ComparisonJobPorts } from "../../functions/core/jobs/run-comparison.js";
import type { Logger } from "../../functions/core/logger.js";
import { type Problem, ProblemSchema } from "../../functions/core/problem/schema.js";
import type { ProgressWriter } from "../../functions/core/progress/recorder.js";
import type { InventoryEntry } from "../../functions/core/solvers/inventory.js";
import { emptyResult } from "../../functions/core/solvers/types.js";
import { type Part, Placeholders } from "../../functions/core/store/conditions.js";
import type { ExtraWrite, LeaseClaim } from "../../functions/core/store/leases.js";
import type { RunRecord } from "../../functions/core/triggers/store.js";

/**
 * In-memory fakes of the ports the worker's job use cases run against (functions/core/jobs/ports.ts):
 * items under leases with the stores' conditions (a write by a worker that no longer holds the item
 * fails), a blob map, a progress writer, a lease port the test ticks by hand, and recorders for
 * notifications, metrics, logs and announcements. No timers, no I/O: a use case's test runs in
 * milliseconds.
 */

type Leased = { status: string; lease_owner?: string | null; lease_expires_at_ms?: number | null; started_at?: string | null };

/** The lease rules of store/leases.ts over a map of items. */
export class LeasedItems<T extends Leased> {
  readonly items = new Map<string, T>();

  constructor(private readonly waiting: string[]) {}

  put(id: string, item: T): void {
    this.items.set(id, structuredClone(item));
  }

  get(id: string): T | null {
    const item = this.items.get(id);
    return item ? structuredClone(item) : null;
  }

  held(id: string, worker: string): T | null {
    const item = this.items.get(id);
    return item?.status === "running" && item.lease_owner === worker ? item : null;
  }

  acquire(id: string, { worker, leaseMs, nowMs }: LeaseClaim): T | null {
    const item = this.items.get(id);
    if (!item) return null;
    const lapsed = item.status === "running" && (item.lease_expires_at_ms ?? 0) < nowMs;
    if (!this.waiting.includes(item.status) && item.lease_owner !== worker && !lapsed) return null;
    Object.assign(item, { status: "running", lease_owner: worker, lease_expires_at_ms: nowMs + leaseMs, started_at: item.started_at ?? isoTime(nowMs) });
    return structuredClone(item);
  }

  renew(id: string, { worker, leaseMs, nowMs }: LeaseClaim): boolean {
    const item = this.held(id, worker);
    if (item) item.lease_expires_at_ms = nowMs + leaseMs;
    return item !== null;
  }

  /** Moves an item `worker` holds to `status` with `set`; null when it no longer holds it. */
  finalizeHeld(id: string, { worker, status, set }: { worker: string; status: string; set: object }): T | null {
    const item = this.held(id, worker);
    if (!item) return null;
    Object.assign(item, set, { status, lease_owner: null, lease_expires_at_ms: null });
    return structuredClone(item);
  }

  /** What another party does meanwhile (the sweeper, a cancel, a stopping worker's hand-back): the item ends without this worker. */
  end(id: string, status: string, fields: object = {}): void {
    Object.assign(this.items.get(id)!, fields, { status, lease_owner: null, lease_expires_at_ms: null });
  }
}

/** Applies the SET parts of an update (`results[1]`, `results[1].status`, `agreement`) to an item. */
function applySet(item: Record<string, unknown>, parts: Part[] = []): void {
  for (const part of parts) {
    const p = new Placeholders();
    const [path, value] = part(p).split(" = ");
    const segments = path!.split(".").map((s) => /^(#p\d+)((?:\[\d+\])*)$/.exec(s)!);
    let target: Record<string, unknown> | unknown[] = item;
    segments.forEach(([, name, indexes], k) => {
      const keys: (string | number)[] = [p.names[name!]!, ...[...indexes!.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]))];
      keys.forEach((key, j) => {
        const last = k === segments.length - 1 && j === keys.length - 1;
        if (last) (target as Record<string | number, unknown>)[key] = structuredClone(p.values[value!]);
        else target = (target as Record<string | number, unknown>)[key] as Record<string, unknown>;
      });
    });
  }
}

export function fakeExecutionStore() {
  const items = new LeasedItems<ExecutionRecord & Leased>(["queued"]);
  const idOf = (key: { sk: string }) => key.sk.slice("EXE#".length);
  return {
    items,
    async acquire(_org: string, { id, worker, leaseMs, nowMs }: LeaseClaim & { id: string }) {
      return items.acquire(id, { worker, leaseMs, nowMs });
    },
    async finalizeHeld(_org: string, { id, worker, status, fields }: { id: string; worker: string; status: string; fields: object }) {
      return items.finalizeHeld(id, { worker, status, set: fields }) !== null;
    },
    async get(_org: string, id: string) {
      return items.get(id);
    },
    async createRunning(record: ExecutionRecord, { worker, leaseMs, nowMs }: LeaseClaim) {
      items.put(record.id, { ...record, status: "running", lease_owner: worker, lease_expires_at_ms: nowMs + leaseMs });
    },
    leases: {
      async renew(key: { sk: string }, { worker, leaseMs, nowMs }: LeaseClaim) {
        return items.renew(idOf(key), { worker, leaseMs, nowMs });
      },
      async leaseOf(key: { sk: string }) {
        const item = items.get(idOf(key));
        return item ? { status: item.status, lease_owner: item.lease_owner ?? null, lease_expires_at_ms: item.lease_expires_at_ms ?? null } : null;
      },
    },
  };
}

type FakeExecutionStore = ReturnType<typeof fakeExecutionStore>;

/** Runs `then` right after each execution is created running: what happens between its creation and its start (a cancel, a lost lease). */
export function afterCreateRunning(store: FakeExecutionStore, then: () => void): void {
  const createRunning = store.createRunning;
  store.createRunning = async (record, claim) => {
    await createRunning(record, claim);
    then();
  };
}

/** The execution leases renewed from now on, each by its sort key (`EXE#id`), in order. */
export function renewalsOf(store: FakeExecutionStore): string[] {
  const renewed: string[] = [];
  const renew = store.leases.renew;
  store.leases.renew = async (key, claim) => {
    renewed.push(key.sk);
    return renew(key, claim);
  };
  return renewed;
}

export function fakeComparisonStore() {
  const items = new LeasedItems<ComparisonRecord & Leased>(["pending"]);
  const held = (id: string, worker: string) => items.held(id, worker) as (ComparisonRecord & Record<string, unknown>) | null;
  return {
    items,
    async acquire(_org: string, { id, worker, leaseMs, nowMs }: LeaseClaim & { id: string }) {
      return items.acquire(id, { worker, leaseMs, nowMs });
    },
    async get(_org: string, id: string) {
      return items.get(id);
    },
    async setFields(_org: string, { id, worker, fields, rows }: { id: string; worker: string; fields: Partial<ComparisonRecord>; rows?: ExtraWrite }) {
      const item = held(id, worker);
      if (!item) return false;
      Object.assign(item, structuredClone(fields));
      applySet(item, rows?.set);
      return true;
    },
    async startRow(_org: string, { id, index, worker, executionId }: { id: string; index: number; worker: string; executionId: string }) {
      const item = held(id, worker);
      if (item?.results[index]?.status !== "pending" || item.cancel_requested)
        return items.get(id)?.cancel_requested ? ("cancelled" as const) : ("lost" as const);
      Object.assign(item.results[index]!, { status: "running", execution_id: executionId });
      return "started" as const;
    },
    async writeRow(
      _org: string,
      { id, index, worker, row, agreement }: { id: string; index: number; worker: string; row: Row; agreement: ComparisonRecord["agreement"] },
    ) {
      const item = held(id, worker);
      const current = item?.results[index];
      if (!item || current?.status !== "running" || current.execution_id !== row.execution_id) return false;
      item.results[index] = structuredClone(row);
      item.agreement = structuredClone(agreement);
      return true;
    },
    async replaceRunningRow(
      _org: string,
      { id, index, worker, seenExecutionId, row }: { id: string; index: number; worker: string; seenExecutionId: string | null; row: Row },
    ) {
      const item = held(id, worker);
      const current = item?.results[index];
      if (!item || current?.status !== "running" || current.execution_id !== seenExecutionId) return false;
      item.results[index] = structuredClone(row);
      return true;
    },
    async finalizeHeld(
      _org: string,
      { id, worker, status, fields, rows }: { id: string; worker: string; status: string; fields: Partial<ComparisonRecord>; rows?: ExtraWrite },
    ) {
      const item = held(id, worker);
      if (!item) return null;
      applySet(item, rows?.set);
      return items.finalizeHeld(id, { worker, status, set: fields });
    },
    leases: {
      async renew(key: { sk: string }, { worker, leaseMs, nowMs }: LeaseClaim) {
        return items.renew(key.sk.slice("CMP#".length), { worker, leaseMs, nowMs });
      },
    },
    /** The API's cancel of a running comparison: its pending rows cancelled and the flag set. */
    cancel(id: string): void {
      const item = items.items.get(id)!;
      item.cancel_requested = true;
      for (const row of item.results) if (row.status === "pending") row.status = "cancelled";
    },
  };
}

export function fakeTriggerRunStore() {
  const runs = new LeasedItems<RunRecord & Leased>(["queued", "pending"]);
  return {
    runs,
    async acquireRun(_trigger: string, { runId, worker, leaseMs, nowMs }: LeaseClaim & { runId: string }) {
      return runs.acquire(runId, { worker, leaseMs, nowMs });
    },
    async renewRun(_trigger: string, { runId, worker, leaseMs, nowMs }: LeaseClaim & { runId: string }) {
      return runs.renew(runId, { worker, leaseMs, nowMs });
    },
    async setRunFields(_trigger: string, { runId, worker, fields }: { runId: string; worker: string; fields: Partial<RunRecord> }) {
      const item = runs.held(runId, worker);
      if (item) Object.assign(item, fields);
      return item !== null;
    },
    async finalizeHeldRun(
      _trigger: string,
      { runId, worker, status, set }: { runId: string; worker: string; status: "completed" | "failed"; set: Partial<RunRecord> },
    ) {
      return runs.finalizeHeld(runId, { worker, status, set });
    },
    async getTrigger(orgId: string, id: string) {
      return { id, org_id: orgId, name: "nightly plan" } as never;
    },
    async getRun(_trigger: string, runId: string) {
      return runs.get(runId);
    },
    /** triggers/store.ts handBackRun (a stopping worker): queued again without a lease, only while its execution is the one seen. */
    async handBackRun(
      _trigger: string,
      { runId, worker, seenExecutionId, creditsCharged }: { runId: string; worker: string; seenExecutionId: string | null; creditsCharged: number | null },
    ) {
      const item = runs.held(runId, worker);
      if (!item || (item.execution_id ?? null) !== seenExecutionId) return null;
      Object.assign(item, { status: "queued", lease_owner: null, lease_expires_at_ms: null, execution_id: null, credits_charged: creditsCharged });
      return runs.get(runId);
    },
    /** triggers/store.ts handRunToRace: still running, the race's id, no lease. */
    async handRunToRace(_trigger: string, { runId, worker, raceId }: { runId: string; worker: string; raceId: string }) {
      const item = runs.held(runId, worker);
      if (item) Object.assign(item, { execution_id: raceId, lease_owner: null, lease_expires_at_ms: null });
      return item !== null;
    },
    /** triggers/store.ts finalizeRaceRun: only a running run handed to this race. */
    async finalizeRaceRun(
      _trigger: string,
      { runId, raceId, status, set }: { runId: string; raceId: string; status: "completed" | "failed"; set: Partial<RunRecord> },
    ) {
      const item = runs.items.get(runId);
      if (item?.status !== "running" || item.execution_id !== raceId || item.lease_owner) return null;
      Object.assign(item, set, { status });
      return runs.get(runId);
    },
    async recentRuns(_trigger: string, limit: number) {
      return [...runs.items.values()].sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, limit);
    },
  };
}

/**
 * A lease port whose leases renew only when the test ticks them, as the container's LeaseKeeper does
 * every third of the lease: a renewal that finds the job's lease gone aborts the solve.
 */
export class ManualLeases implements LeasePort {
  readonly kept: (HeldLease & { renew: Renew; companion: Renew | null; stopped: boolean })[] = [];

  keep(renew: Renew) {
    const controller = new AbortController();
    const lease = {
      renew,
      companion: null as Renew | null,
      stopped: false,
      signal: controller.signal,
      holdAlso(next: Renew | null) {
        lease.companion = next;
      },
      stop() {
        lease.stopped = true;
      },
      async tick() {
        if (!(await renew())) return controller.abort(new Error("lease lost"));
        await lease.companion?.();
      },
    };
    this.kept.push(lease);
    return lease;
  }

  /** One renewal of every lease still kept. */
  async tick(): Promise<void> {
    for (const lease of this.kept) if (!lease.stopped) await (lease as unknown as { tick(): Promise<void> }).tick();
  }
}

/** A solve that waits until its signal aborts, then answers as an adapter does: `error` "cancelled". */
export function untilAborted(signal: AbortSignal | undefined): Promise<SolvedResult> {
  const cancelled = () => ({ ...solverAnswer("error"), error_message: "cancelled" });
  if (signal?.aborted) return Promise.resolve(cancelled());
  return new Promise((resolve) => signal?.addEventListener("abort", () => resolve(cancelled()), { once: true }));
}

/** A solver's answer: the verdict (an empty result's fields, a fake solver's times and version), with what the test gives. */
export function solverAnswer(status: SolvedResult["solver_status"], fields: Partial<SolvedResult> = {}): SolvedResult {
  return { ...emptyResult(status), solver_time_seconds: 0.01, wall_time_ms: 12, solver_version: "fake 1.0", ...fields };
}

/** maximize 3x + 2y subject to x + y ≤ 4, x ≤ 3, x, y ≥ 0: the optimum is x = 3, y = 1, objective 11. */
export const SMALL_LP: Problem = ProblemSchema.parse({
  name: "small",
  sense: "maximize",
  variables: [
    { name: "x", type: "continuous", lb: 0, ub: null },
    { name: "y", type: "continuous", lb: 0, ub: null },
  ],
  objective: {
    terms: [
      { var: "x", coef: 3 },
      { var: "y", coef: 2 },
    ],
  },
  constraints: [
    {
      name: "capacity",
      terms: [
        { var: "x", coef: 1 },
        { var: "y", coef: 1 },
      ],
      lb: null,
      ub: 4,
    },
    { name: "x_cap", terms: [{ var: "x", coef: 1 }], lb: null, ub: 3 },
  ],
});

export const OPTIMUM = solverAnswer("optimal", { objective_value: 11, dual_bound: 11, gap: 0, solution: { x: 3, y: 1 } });

export const WORKER = "worker-under-test";

/** A queued async solve of SMALL_LP with highs, notifying its user. */
export const queuedExecution = (id: string): ExecutionRecord =>
  newExecutionRecord({
    id,
    orgId: "org_1",
    createdBy: "usr_1",
    origin: { kind: "solve_async", id: null },
    notify: true,
    solverRequested: "auto",
    solverName: "highs",
    problem: { inline: JSON.stringify(SMALL_LP) },
    problemName: "small",
    stats: { problem_class: "LP", variable_count: 2, constraint_count: 2 },
    settings: { time_limit_seconds: 60, gap_tolerance: 1e-4, threads: 1 },
    creditsCharged: 1,
    nowMs: Date.parse("2026-11-01T00:00:00.000Z"),
  });

/** A pending inline comparison of SMALL_LP (id `cmp_1`) with a pending row per solver; `fields` changes what a test needs. */
export const pendingComparison = (solvers: string[], fields: Partial<NewComparison> = {}): ComparisonRecord =>
  newComparisonRecord({
    id: "cmp_1",
    orgId: "org_1",
    createdBy: "usr_1",
    problemName: "small",
    settings: { time_limit_seconds: 60, gap_tolerance: 1e-4, threads: 1 },
    stats: { problem_class: "LP", variable_count: 2, constraint_count: 2 },
    solverNames: solvers,
    rows: solvers.map(pendingRow),
    problem: { inline: JSON.stringify(SMALL_LP) },
    creditsEach: 1,
    priority: 0,
    numerics: null,
    nowMs: Date.parse("2026-11-01T00:00:00.000Z"),
    ...fields,
  });

/** Every port of the job use cases over in-memory fakes; `solve` is the test's solver (one call per run of it). */
export function fakeJobPorts(solve: SolvePort["solve"]) {
  const blobMap = new Map<string, string>();
  const blobs: BlobStore = {
    put: async (key, body) => void blobMap.set(key, typeof body === "string" ? body : new TextDecoder().decode(body)),
    get: async (key) => blobMap.get(key) ?? null,
    delete: async (key) => void blobMap.delete(key),
  };
  const progressChunks: { executionId: string; lines: string[] }[] = [];
  const progress: ProgressWriter = {
    append: async (_org, executionId, chunk) => void progressChunks.push({ executionId, lines: chunk.lines ?? [] }),
    summarise: async () => undefined,
  };
  const logs: { level: string; message: string; fields: unknown }[] = [];
  const logger = {
    info: (message: string, fields?: unknown) => logs.push({ level: "info", message, fields }),
    warn: (message: string, fields?: unknown) => logs.push({ level: "warn", message, fields }),
    error: (message: string, fields?: unknown) => logs.push({ level: "error", message, fields }),
    debug: () => undefined,
  } as unknown as Logger;
  const notices: { to: string; type: string; message: string }[] = [];
  const totals: { solved: number; solveMs: number }[] = [];
  const announced: { id: string; outcome: unknown }[] = [];
  const solves: { solver: string; signal?: AbortSignal }[] = [];
  const leases = new ManualLeases();
  const executionStore = fakeExecutionStore();
  const comparisonStore = fakeComparisonStore();
  const ports = {
    workerId: WORKER,
    machineNote: "a test machine",
    // Every payload goes to the blob store (inline at most 1 byte), so stored results can be read back.
    config: loadConfig({ INLINE_PAYLOAD_MAX_BYTES: "1" }),
    clock: new ManualClock(Date.UTC(2026, 10, 1)),
    logger,
    solver: {
      solve: (name, request) => {
        solves.push({ solver: name, signal: request.signal });
        return solve(name, request);
      },
      // No solver listed: no cross-checks, no fallback of `auto`; a test that needs them sets its own.
      inventory: async (): Promise<InventoryEntry[]> => [],
    },
    lease: leases,
    blobs,
    progress,
    executionStore,
    metricsStore: { addTotals: async (t: { solved: number; solveMs: number }) => void totals.push(t) },
    identity: { getOrganization: async (id: string) => ({ id, credit_balance: 42 }) as never },
    notifications: {
      notify: async (to: string, n: { type: string; message: string }) => {
        notices.push({ to, type: n.type, message: n.message });
        return n as never;
      },
    },
    announceFinal: (id: string, outcome?: unknown) => void announced.push({ id, outcome }),
    comparisonStore,
    executions: { result: async (record: { result: { blob: string } | { inline: string } | null }) => readPayload(blobs, record.result) },
    inventory: { available: async () => new Set() },
  } satisfies ComparisonJobPorts;
  return { ports, blobMap, blobs, progressChunks, logs, notices, totals, announced, solves, leases, executionStore, comparisonStore };
}

export async function readPayload<T>(blobs: BlobStore, ref: { blob: string } | { inline: string } | null): Promise<T | null> {
  if (!ref) return null;
  return JSON.parse("inline" in ref ? ref.inline : ((await blobs.get(ref.blob)) ?? "null")) as T;
}
