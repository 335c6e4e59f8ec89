import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { epochSeconds, ManualClock } from "../../functions/core/clock.js";
import { loadConfig } from "../../functions/core/config.js";
import { createServices, type Services } from "../../functions/core/services.js";
import { ensureTable, TABLE_KEYS } from "../../functions/core/store/dynamo.js";
import { type Backend, startDynaliteBackend } from "../support/backends.js";

/** Progress and log items are not kept forever: each carries the table's TTL at the configured retention. */
describe("progress retention", () => {
  let backend: Backend;
  let services: Services;
  const clock = new ManualClock(Date.UTC(2026, 10, 23, 9, 30, 0));

  beforeAll(async () => {
    process.env.AWS_ACCESS_KEY_ID ??= "test";
    process.env.AWS_SECRET_ACCESS_KEY ??= "test";
    backend = await startDynaliteBackend();
    const config = loadConfig({ AWS_ENDPOINT_URL: backend.endpoint, TABLE_NAME: "progress-retention", PROGRESS_RETENTION_DAYS: "3" });
    services = createServices({ config, jwtSecret: "s".repeat(32), clock });
    await ensureTable(services.dynamo, config.tableName);
  }, 30_000);
  afterAll(() => backend?.stop());

  it("keeps progress 7 days unless PROGRESS_RETENTION_DAYS says otherwise", () => {
    expect(loadConfig({}).progressRetentionDays).toBe(7);
    expect(services.config.progressRetentionDays).toBe(3);
  });

  it("writes every chunk with the TTL attribute at the configured horizon from its write, and a summary keeps it", async () => {
    const store = services.progressStore;
    const chunk = (seq: number) => ({
      seq,
      first_line: seq * 2,
      line_count: 2,
      lines: [`line ${seq * 2}`, `line ${seq * 2 + 1}`],
      first_point: seq,
      points: [{ time_seconds: seq, primal: 10 - seq, dual: seq, gap: null, nodes: seq }],
    });
    const ttlOf = async (seq: number) => {
      const item = await services.table.get<Record<string, unknown>>("PRG#org_ret#exe_ret", `CHUNK#${String(seq).padStart(6, "0")}`);
      return item?.[TABLE_KEYS.ttlAttribute];
    };
    const firstWrite = clock.now();
    await store.append("org_ret", "exe_ret", chunk(0));
    clock.advance(90_000);
    await store.append("org_ret", "exe_ret", chunk(1));
    expect(await ttlOf(0)).toBe(epochSeconds(firstWrite) + 3 * 86_400);
    expect(await ttlOf(1)).toBe(epochSeconds(firstWrite + 90_000) + 3 * 86_400);

    await store.summarise("org_ret", { executionId: "exe_ret", chunk: { seq: 1, first_line: 2, line_count: 2 }, summary: "[summarised]" });
    expect(await ttlOf(1)).toBe(epochSeconds(firstWrite + 90_000) + 3 * 86_400);
    // The TTL is the table's own attribute: a reader of the log never sees it.
    const read = await store.read("org_ret", { executionId: "exe_ret", offset: 0, pointOffset: 0 });
    expect(read.lines).toEqual(["line 0", "line 1", "[summarised]"]);
  });
});
