import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../functions/core/clock.js";
import { loadConfig } from "../../functions/core/config.js";
import { createServices, type Services } from "../../functions/core/services.js";
import { ensureTable } from "../../functions/core/store/dynamo.js";
import { Leases } from "../../functions/core/store/leases.js";
import { startDynaliteBackend, startMotoBackend, type Backend } from "../support/backends.js";
import { machineHas } from "../support/machine.js";

/**
 * The store's rules — unique claims, exact caps under races, usable-once tokens, counters that
 * never pass their limit — run against dynalite AND moto_server, so they hold on the DynamoDB API
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
    const takes = await Promise.all([
      services.identity.consumeResetToken("hash-once", clock.now()),
      services.identity.consumeResetToken("hash-once", clock.now()),
    ]);
    expect(takes.filter((t) => t === user.id)).toHaveLength(1);
  });

  it("never lets a counter pass its limit, however many consume at once", async () => {
    const windows = [{ name: "burst", seconds: 60, limit: 7 }];
    const results = await Promise.all(Array.from({ length: 20 }, () => services.counters.consume("suite", windows, clock.now())));
    expect(results.filter((r) => r.allowed)).toHaveLength(7);
    const refused = results.find((r) => !r.allowed)!;
    expect(refused.windows[0]).toMatchObject({ count: 7, remaining: 0, limit: 7 });
  });

  it("charges credits only down to the floor, with one conditional ADD", async () => {
    const { org } = await services.auth.createOrganizationWithOwner({ orgName: "D", email: "credits@example.test", password: "password one" });
    const grant = services.config.creditsInitialGrant;
    expect(await services.identity.adjustCredits(org.id, -(grant - 5), 0)).toBe(5);
    expect(await services.identity.adjustCredits(org.id, -6, 0)).toBeNull();
    expect(await services.identity.adjustCredits(org.id, -5, 0)).toBe(0);
    expect(await services.identity.adjustCredits(org.id, 100, null)).toBe(100);
  });

  it("lets a worker acquire a waiting item, its own or an expired lease, and nothing else (a missing item is not created)", async () => {
    const leases = new Leases(services.table);
    const now = clock.now();
    const key = (n: string) => ({ pk: "LEASE#suite", sk: n });
    const acquire = (n: string, worker: string, at = now) => leases.acquire<{ lease_owner: string }>(key(n), ["queued", "pending"], worker, 60_000, at, "t");
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
