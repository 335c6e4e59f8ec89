import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isoTime, ManualClock } from "../../functions/core/clock.js";
import { newComparisonRecord } from "../../functions/core/comparisons/records.js";
import { pendingRow } from "../../functions/core/comparisons/rows.js";
import { type ExecutionRecord, executionKey } from "../../functions/core/executions/store.js";
import { loadConfig } from "../../functions/core/config.js";
import { createServices, type Services } from "../../functions/core/services.js";
import { ensureTable } from "../../functions/core/store/dynamo.js";
import { CreditFloorError, ResetTokenSpentError } from "../../functions/core/identity/store.js";
import { Leases } from "../../functions/core/store/leases.js";
import { FairShareStore } from "../../functions/core/queue/fair-share-store.js";
import { newRunRecord } from "../../functions/core/triggers/records.js";
import { runKey } from "../../functions/core/triggers/store.js";
import { sweep } from "../../functions/core/sweeper/sweep.js";
import { startDynaliteBackend, startMotoBackend, type Backend } from "../support/backends.js";
import { machineHas } from "../support/machine.js";

/**
 * The store's rules — unique claims, exact caps under races, usable-once tokens, counters that
 * never pass their limit, a lease lifecycle whose every write holds only for its owner or a lapsed lease — run against dynalite AND moto_server, so they hold on the DynamoDB API
 * itself and not only on one emulator.
 */
const backends: [string, () => Promise<Backend>][] = [["dynalite", startDynaliteBackend]];
if (machineHas("moto_server")) backends.push(["moto_server", startMotoBackend]);

describe.each(backends)("store on %s", (_name, start) => {
  let backend: Backend;
  let services: Services;
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 8, 0, 0));

  beforeAll(async () => {
    process.env.AWS_ACCESS_KEY_ID ??= "test";
    process.env.AWS_SECRET_ACCESS_KEY ??= "test";
    backend = await start();
    const config = loadConfig({ AWS_ENDPOINT_URL: backend.endpoint, TABLE_NAME: `store-suite`, AUTH_MAX_ACTIVE_API_KEYS_PER_USER: "5" });
    services = createServices({ config, jwtSecret: "s".repeat(32), clock });
    await ensureTable(services.dynamo, config.tableName);
  }, 30_000);
  afterAll(() => backend?.stop());

  it("stores maps whatever their user-named keys, and reads them back the same (`constructor` made the marshaller refuse the item: a 500)", async () => {
    const data = { constructor: 5, toString: [1, 2], hasOwnProperty: { valueOf: "x", prototype: null }, n: 3 };
    await services.table.putNew({ pk: "PROTO#1", sk: "PROTO", override_data: data });
    const back = await services.table.get<{ override_data: typeof data }>("PROTO#1", "PROTO");
    expect(back!.override_data).toEqual(data);
    expect(Object.keys(back!.override_data)).toEqual(Object.keys(data));
    expect(Object.getPrototypeOf(back!.override_data)).toBe(Object.prototype);
  });

  it("claims an e-mail address once, even when two sign-ups race", async () => {
    const org = await services.auth.createOrganizationWithOwner({ orgName: "A", email: "first@example.test", password: "password one" });
    const results = await Promise.allSettled([
      services.auth.createUser(org.org.id, { email: "Race@Example.test", password: "password 1", role: "solver" }),
      services.auth.createUser(org.org.id, { email: "race@example.TEST", password: "password 2", role: "solver" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect((await services.identity.findUserByEmail("RACE@example.test"))?.org_id).toBe(org.org.id);
  });

  it("keeps the live-key cap exact when creations race", async () => {
    const { org, user } = await services.auth.createOrganizationWithOwner({ orgName: "B", email: "keys@example.test", password: "password one" });
    const principal = { kind: "session" as const, userId: user.id, orgId: org.id, role: user.role, keyId: null };
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => services.auth.createApiKey(principal, { name: `k${i}` })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
    const live = (await services.auth.listApiKeys(principal)).filter((k) => k.status === "active");
    expect(live).toHaveLength(5);
  });

  it("consumes a password-reset token once", async () => {
    const { user } = await services.auth.createOrganizationWithOwner({ orgName: "C", email: "once@example.test", password: "password one" });
    await services.identity.putResetToken("hash-once", user.id, clock.now() + 60_000);
    const takes = await Promise.allSettled([
      services.identity.consumeResetToken("hash-once", clock.now()),
      services.identity.consumeResetToken("hash-once", clock.now()),
    ]);
    expect(takes.filter((t) => t.status === "fulfilled" && t.value === user.id)).toHaveLength(1);
    // The other take fails with the token as it stands, which says it was used.
    const refused = takes.find((t) => t.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ResetTokenSpentError);
    expect(refused.reason).toMatchObject({ reason: "used", existing: { user_id: user.id } });
  });

  it("refuses an expired reset token as expired, and an unknown one with null", async () => {
    const { user } = await services.auth.createOrganizationWithOwner({ orgName: "C2", email: "late@example.test", password: "password one" });
    await services.identity.putResetToken("hash-late", user.id, clock.now() + 1000);
    const late = await services.identity.consumeResetToken("hash-late", clock.now() + 1000).catch((error: unknown) => error);
    expect(late).toBeInstanceOf(ResetTokenSpentError);
    expect((late as ResetTokenSpentError).reason).toBe("expired");
    expect(await services.identity.consumeResetToken("hash-unknown", clock.now())).toBeNull();
  });

  it("never lets a counter pass its limit, however many consume at once", async () => {
    const windows = [{ name: "burst", seconds: 60, limit: 7 }];
    const results = await Promise.all(Array.from({ length: 20 }, () => services.counters.consume("suite", { windows, nowMs: clock.now() })));
    expect(results.filter((r) => r.allowed)).toHaveLength(7);
    const refused = results.find((r) => !r.allowed)!;
    expect(refused.windows[0]).toMatchObject({ count: 7, remaining: 0, limit: 7 });
  });

  it("counts every window of one item and refuses at the first full one, whatever characters the windows' names hold", async () => {
    const windows = [
      { name: "solves-day", seconds: 86_400, limit: 5 },
      { name: "burst.minute", seconds: 60, limit: 3 },
      { name: "all", seconds: 3600, limit: 0 },
    ];
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await services.counters.consume("named-windows", { windows, nowMs: clock.now() }));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results[3]!.windows.map((w) => [w.name, w.count])).toEqual([
      ["solves-day", 3],
      ["burst.minute", 3],
      ["all", 3],
    ]);
  });

  it("charges credits only down to the floor, with one conditional ADD", async () => {
    const { org } = await services.auth.createOrganizationWithOwner({ orgName: "D", email: "credits@example.test", password: "password one" });
    const grant = services.config.creditsInitialGrant;
    expect(await services.identity.adjustCredits(org.id, -(grant - 5), 0)).toBe(5);
    // Refused by the floor: the error carries the organization, whose balance is what is left.
    const refused = await services.identity.adjustCredits(org.id, -6, 0).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CreditFloorError);
    expect((refused as CreditFloorError).balance).toBe(5);
    expect(await services.identity.adjustCredits(org.id, -5, 0)).toBe(0);
    expect(await services.identity.adjustCredits(org.id, 100, null)).toBe(100);
    expect(await services.identity.adjustCredits("org_gone", -1, 0)).toBeNull();
    expect(await services.identity.adjustCredits("org_gone", 1, null)).toBeNull();
  });

  describe("the lease lifecycle", () => {
    const org = "org_leases";
    const execution = (id: string): ExecutionRecord => ({
      id,
      org_id: org,
      created_by: "usr_x",
      status: "queued",
      origin: { kind: "solve" } as ExecutionRecord["origin"],
      notify: false,
      solver_requested: "cbc",
      solver_name: "cbc",
      problem: { inline: "{}" },
      problem_name: "p",
      problem_class: "LP",
      variable_count: 1,
      constraint_count: 0,
      settings: { time_limit_seconds: 60, gap_tolerance: 0.0001, threads: 1 },
      credits_charged: 1,
      created_at: isoTime(clock.now()),
      started_at: null,
      completed_at: null,
      error_message: null,
      result: null,
      deadline_ms: null,
    });

    it("the sweeper's write loses to a renewal that landed after its read, and wins once the lease lapsed again", async () => {
      const store = services.executionStore;
      await store.create(execution("exe_sweep_race"));
      expect(await store.acquire(org, { id: "exe_sweep_race", worker: "worker-a", leaseMs: 1000, nowMs: clock.now() })).not.toBeNull();
      clock.advance(2000);
      const seen = (await store.leases.active()).find((a) => a.sk === "EXE#exe_sweep_race")!;
      expect(seen.lease_expires_at_ms).toBeLessThan(clock.now()); // the sweeper reads a lapsed lease…
      expect(await store.leases.renew(executionKey(org, "exe_sweep_race"), { worker: "worker-a", leaseMs: 1000, nowMs: clock.now() })).toBe(true); // …the worker renews…
      expect(await store.failIfLeaseLapsed(org, { id: "exe_sweep_race", seenStatus: "running", reason: "gone", nowMs: clock.now() })).toBeNull(); // …and the sweeper's write fails
      expect((await store.get(org, "exe_sweep_race"))?.status).toBe("running");
      clock.advance(2000);
      expect((await store.failIfLeaseLapsed(org, { id: "exe_sweep_race", seenStatus: "running", reason: "gone", nowMs: clock.now() }))?.status).toBe("failed");
      expect(await store.leases.active()).not.toContainEqual(expect.objectContaining({ sk: "EXE#exe_sweep_race" }));
    });

    it("a race sits in ACTIVE until its answer; the sweeper answers one whose settle step was lost, and takes it out", async () => {
      const entrant: ExecutionRecord = {
        ...execution("exe_race_entrant"),
        status: "completed",
        origin: { kind: "race", id: "exe_race_lost" },
        solver_name: "highs",
        started_at: isoTime(clock.now()),
        completed_at: isoTime(clock.now() + 1000),
        result: { inline: JSON.stringify({ status: "optimal", objective_value: 3, dual_bound: 3, solver_name: "highs", solution: { x: 3 } }) },
      };
      await services.executionStore.create(entrant);
      const row = {
        solver: "highs" as const,
        execution_id: entrant.id,
        state: "running" as const,
        status: null,
        objective_value: null,
        best_bound: null,
        time_seconds: null,
      };
      await services.raceStore.create({
        ...execution("exe_race_lost"),
        status: "running",
        solver_requested: "race",
        solver_name: "race",
        race: { winner: null, decided_by: null, degraded: true, note: "only one worker was free", entrants: [row] },
      });
      expect(await services.executionStore.leases.active()).toContainEqual(expect.objectContaining({ sk: "EXE#exe_race_lost", kind: "race" }));
      const report = await sweep(services);
      expect(report.settledRaces).toContain("exe_race_lost");
      expect(report.failed.map((f) => f.id)).not.toContain("exe_race_lost");
      const race = await services.executionStore.get(org, "exe_race_lost");
      expect(race).toMatchObject({ status: "completed", solver_name: "highs", race: { winner: "highs", decided_by: "proven_verdict" } });
      expect(await services.executionStore.leases.active()).not.toContainEqual(expect.objectContaining({ sk: "EXE#exe_race_lost" }));
    });

    /** A fired trigger run and its fair-share job, for the fair-share cases below. */
    const fireOf = (triggerId: string, solverName: "race" | "highs") => {
      const run = newRunRecord({
        trigger: { id: triggerId, org_id: org, solver_name: solverName, document_id: "doc_x", version_id: "ver_x" },
        source: "fire",
        createdBy: "usr_x",
        rerunOf: null,
        overrideData: {},
        settings: { time_limit_seconds: 60, gap_tolerance: 1e-4, threads: 1 },
        nowMs: clock.now(),
      });
      return { run, job: { type: "trigger_run" as const, id: run.id, org_id: org, trigger_id: run.trigger_id } };
    };

    it("a trigger run handed to its race is done with as a job (its fair-share slot is freed), while it stays running", async () => {
      const { run, job } = fireOf("trg_01m8j4aaaaaaaaaaaaaaaaaaaa", "race");
      const fairShareStore = new FairShareStore(services.table);
      expect(await services.triggerStore.createRun(run)).toBe(true);
      expect(await fairShareStore.itemState(job)).toBe("waiting");
      await services.triggerStore.acquireRun(run.trigger_id, { runId: run.id, worker: "worker-a", leaseMs: 60_000, nowMs: clock.now() });
      expect(await fairShareStore.itemState(job)).toBe("running");
      expect(await services.triggerStore.handRunToRace(run.trigger_id, { runId: run.id, worker: "worker-a", raceId: "exe_its_race" })).toBe(true);
      expect((await services.triggerStore.getRun(run.trigger_id, run.id))?.status).toBe("running");
      expect(await fairShareStore.itemState(job)).toBe("done");
    });

    it("a trigger run whose worker died keeps its fair-share slot while its lease lapses: it is running, not done with, until swept or taken again", async () => {
      const { run, job } = fireOf("trg_01m8j4bbbbbbbbbbbbbbbbbbbb", "highs");
      const fairShareStore = new FairShareStore(services.table);
      expect(await services.triggerStore.createRun(run)).toBe(true);
      await services.triggerStore.acquireRun(run.trigger_id, { runId: run.id, worker: "worker-dies", leaseMs: 1_000, nowMs: clock.now() });
      clock.advance(5_000); // the worker died: nobody renews the lease, which has lapsed
      expect(await services.triggerStore.leases.leaseOf(runKeyOf(run))).toMatchObject({ status: "running", lease_owner: "worker-dies" });
      expect(await fairShareStore.itemState(job)).toBe("running");
      // Its redelivered job takes it again under a new lease: still running, still the one slot's.
      expect(await services.triggerStore.acquireRun(run.trigger_id, { runId: run.id, worker: "worker-b", leaseMs: 60_000, nowMs: clock.now() })).not.toBeNull();
      expect(await fairShareStore.itemState(job)).toBe("running");
    });

    it("a job handed back after longer than the stale window is not failed as stale: it waits anew from its hand-back", async () => {
      const store = services.executionStore;
      const windowMs = services.config.staleQueuedSeconds * 1000;
      await store.create(execution("exe_handed_back"));
      expect(await store.acquire(org, { id: "exe_handed_back", worker: "worker-a", leaseMs: 3 * windowMs, nowMs: clock.now() })).not.toBeNull();
      clock.advance(2 * windowMs); // a long solve, then its worker stops and hands the job back
      expect(await store.handBack(org, { id: "exe_handed_back", worker: "worker-a", nowMs: clock.now() })).toBe(true);
      clock.advance(windowMs / 2);
      const seen = (await store.leases.active()).find((a) => a.sk === "EXE#exe_handed_back")!;
      expect(Date.parse(seen.created_at)).toBeLessThan(clock.now() - windowMs); // stale by created_at…
      expect(seen.queued_at).toBe(isoTime(clock.now() - windowMs / 2)); // …fresh by its hand-back
      const report = await sweep(services);
      expect(report.failed.map((f) => f.id)).not.toContain("exe_handed_back");
      expect((await store.get(org, "exe_handed_back"))?.status).toBe("queued");
      // The sweeper's write holds only while the item still waits since the queued_at it read.
      expect(
        await store.failIfLeaseLapsed(org, { id: "exe_handed_back", seenStatus: "queued", seenQueuedAt: seen.created_at, reason: "gone", nowMs: clock.now() }),
      ).toBeNull();
      clock.advance(windowMs); // no worker takes it within a whole window after the hand-back: now it is stale
      expect((await sweep(services)).failed.map((f) => f.id)).toContain("exe_handed_back");
      expect((await store.get(org, "exe_handed_back"))?.status).toBe("failed");
    });

    it("only the lease owner finishes; another worker takes over only a lapsed lease", async () => {
      const store = services.executionStore;
      await store.create(execution("exe_owner"));
      await store.acquire(org, { id: "exe_owner", worker: "worker-a", leaseMs: 1000, nowMs: clock.now() });
      expect(await store.acquire(org, { id: "exe_owner", worker: "worker-b", leaseMs: 1000, nowMs: clock.now() })).toBeNull();
      const failed = { result: null, error_message: "worker error", completed_at: isoTime(clock.now()) };
      expect(await store.finalizeHeld(org, { id: "exe_owner", worker: "worker-b", status: "failed", fields: failed })).toBe(false);
      clock.advance(1500);
      expect((await store.acquire(org, { id: "exe_owner", worker: "worker-b", leaseMs: 1000, nowMs: clock.now() }))?.status).toBe("running");
      expect(await store.finalizeHeld(org, { id: "exe_owner", worker: "worker-a", status: "failed", fields: failed })).toBe(false); // the dead worker's error path
      expect(await store.finalizeHeld(org, { id: "exe_owner", worker: "worker-b", status: "completed", fields: { ...failed, error_message: null } })).toBe(
        true,
      );
      expect((await store.get(org, "exe_owner"))?.status).toBe("completed");
    });

    it("the sweeper fails a comparison's unfinished rows one by one and keeps its finished row", async () => {
      const store = services.comparisonStore;
      const row = pendingRow;
      const record = newComparisonRecord({
        id: "cmp_sweep",
        orgId: org,
        createdBy: "usr_x",
        problemName: "p",
        settings: { time_limit_seconds: 60, gap_tolerance: 0.0001, threads: 1 },
        stats: { problem_class: "LP", variable_count: 1, constraint_count: 0 },
        solverNames: ["cbc", "glpk", "highs"],
        rows: [row("cbc"), row("glpk"), row("highs")],
        problem: { inline: "{}" },
        creditsEach: 1,
        priority: 0,
        numerics: null,
        nowMs: clock.now(),
      });
      await store.create(record);
      await store.acquire(org, { id: "cmp_sweep", worker: "worker-a", leaseMs: 1000, nowMs: clock.now() });
      expect(await store.startRow(org, { id: "cmp_sweep", index: 0, worker: "worker-a", executionId: "exe_row0" })).toBe("started");
      const done = { ...row("cbc"), status: "completed" as const, execution_id: "exe_row0", solver_status: "optimal" as const, objective_value: 3 };
      expect(await store.writeRow(org, { id: "cmp_sweep", index: 0, worker: "worker-a", row: done, agreement: null })).toBe(true);
      expect(await store.startRow(org, { id: "cmp_sweep", index: 1, worker: "worker-a", executionId: "exe_row1" })).toBe("started");
      // A row's write names the execution it started: a stale one (another attempt's) does not land.
      const stale = { ...done, solver_name: "glpk", execution_id: "exe_other" };
      expect(await store.writeRow(org, { id: "cmp_sweep", index: 1, worker: "worker-a", row: stale, agreement: null })).toBe(false);
      expect(await store.failIfLeaseLapsed(org, { id: "cmp_sweep", seenStatus: "running", reason: "gone", nowMs: clock.now() })).toBeNull(); // lease not lapsed yet
      clock.advance(1500);
      const swept = await store.failIfLeaseLapsed(org, { id: "cmp_sweep", seenStatus: "running", reason: "gone", nowMs: clock.now() });
      expect(swept?.status).toBe("failed");
      expect(swept?.results.map((r) => [r.status, r.execution_id, r.objective_value])).toEqual([
        ["completed", "exe_row0", 3],
        ["failed", "exe_row1", null],
        ["failed", null, null],
      ]);
      const late = { ...done, solver_name: "glpk", execution_id: "exe_row1" };
      expect(await store.writeRow(org, { id: "cmp_sweep", index: 1, worker: "worker-a", row: late, agreement: null })).toBe(false);
    });
  });

  it("lets a worker acquire a waiting item, its own or an expired lease, and nothing else (a missing item is not created)", async () => {
    const leases = new Leases(services.table);
    const now = clock.now();
    const key = (n: string) => ({ pk: "LEASE#suite", sk: n });
    const acquire = (n: string, worker: string, at = now) =>
      leases.acquire<{ lease_owner: string }>(key(n), { waiting: ["queued", "pending"], worker, leaseMs: 60_000, nowMs: at, startedAt: "t" });
    for (const [n, status] of [
      ["queued", "queued"],
      ["pending", "pending"],
      ["final", "completed"],
    ] as const) {
      await services.table.putNew({ ...key(n), status, created_at: "t" });
    }
    expect(await acquire("queued", "w1")).toMatchObject({ status: "running", lease_owner: "w1" });
    expect(await acquire("pending", "w1")).toMatchObject({ status: "running", lease_owner: "w1" });
    expect(await acquire("queued", "w2")).toBeNull(); // held, lease live
    expect(await acquire("queued", "w1")).toMatchObject({ lease_owner: "w1" }); // its own (a redelivery to the holder)
    expect(await acquire("queued", "w2", now + 61_000)).toMatchObject({ lease_owner: "w2" }); // expired: taken over
    expect(await acquire("final", "w1")).toBeNull();
    expect(await acquire("missing", "w1")).toBeNull();
    expect(await services.table.get(key("missing").pk, key("missing").sk)).toBeNull();
  });
});

const runKeyOf = (run: { trigger_id: string; id: string }) => runKey(run.trigger_id, run.id)!;
