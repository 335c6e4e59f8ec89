import { describe, expect, it } from "vitest";
import { staleReason, waitingSinceMs } from "../../../../../functions/core/sweeper/stale.js";

const HOUR_MS = 3_600_000;
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

describe("staleReason (the sweeper's rule)", () => {
  it("fails a queued or pending item that has waited longer than the window since it was queued", () => {
    for (const status of ["queued", "pending"]) {
      const item = { status, lease_expires_at_ms: null, created_at: iso(NOW - 2 * HOUR_MS), queued_at: iso(NOW - HOUR_MS - 1000) };
      expect(staleReason(item, NOW, 3600)).toBe("no worker started this within 3600 s");
    }
  });

  it("leaves alone a handed-back item older than the window by created_at while its queued_at is fresh", () => {
    const item = { status: "queued", lease_expires_at_ms: null, created_at: iso(NOW - 5 * HOUR_MS), queued_at: iso(NOW - 60_000) };
    expect(staleReason(item, NOW, 3600)).toBeNull();
    expect(waitingSinceMs(item)).toBe(NOW - 60_000);
  });

  it("judges an item written before queued_at existed by its created_at", () => {
    const old = { status: "queued", lease_expires_at_ms: null, created_at: iso(NOW - HOUR_MS - 1) };
    expect(waitingSinceMs(old)).toBe(NOW - HOUR_MS - 1);
    expect(staleReason(old, NOW, 3600)).toMatch(/no worker started/);
    expect(staleReason({ ...old, created_at: iso(NOW - HOUR_MS + 1) }, NOW, 3600)).toBeNull();
  });

  it("fails a running item only once its lease has lapsed, however long it has run", () => {
    const running = { status: "running", created_at: iso(NOW - 10 * HOUR_MS), queued_at: iso(NOW - 10 * HOUR_MS) };
    expect(staleReason({ ...running, lease_expires_at_ms: NOW + 1 }, NOW, 3600)).toBeNull();
    expect(staleReason({ ...running, lease_expires_at_ms: NOW - 1 }, NOW, 3600)).toMatch(/lease expired/);
    expect(staleReason({ ...running, lease_expires_at_ms: null }, NOW, 3600)).toBeNull();
  });
});
