import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startTestStack } from "../support/test-stack.js";

/** `npm start -- --data DIR` keeps the data on disk: a second start finds the organization and keys. */
describe("local stack with --data", () => {
  it("keeps identities, keys and results across a restart, and bootstraps only once", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "incumbent-data-"));
    try {
      const first = await startTestStack({ dataDir: dir, env: { LOCAL_WORKERS: "0" } });
      const key = await first.api.post("/api/v2/keys", { name: "survives" });
      const login = await first.api.as(null).post("/api/v2/auth/login", { email: "owner@example.test", password: "correct horse battery" });
      expect(first.bootstrap.created).toBe(true);
      await first.stop();

      const second = await startTestStack({ dataDir: dir, env: { LOCAL_WORKERS: "0" } });
      try {
        expect(second.bootstrap.created).toBe(false);
        expect(second.bootstrap.organizationId).toBe(first.bootstrap.organizationId);
        expect((await second.api.as(key.body.key).get("/api/v2/auth/me")).status).toBe(200);
        // The JWT secret is kept too, so a session survives a restart.
        expect((await second.api.as(login.body.access_token).get("/api/v2/auth/me")).status).toBe(200);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
