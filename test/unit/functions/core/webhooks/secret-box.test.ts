import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { isSealed, localKeyMaterial, SEALED_PREFIX, WebhookSecretBox } from "../../../../../functions/core/webhooks/secret-box.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "secret-box-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const box = (material = "k".repeat(40)) => new WebhookSecretBox(async () => Buffer.from(material));

describe("webhook secrets sealed at rest", () => {
  it("opens what it sealed, for any secret and trigger, and the sealed form never holds the secret", async () => {
    const b = box();
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 200 }), fc.string({ minLength: 1, maxLength: 40 }), async (secret, triggerId) => {
        const sealed = await b.seal(secret, triggerId);
        expect(isSealed(sealed)).toBe(true);
        if (secret.length >= 8) expect(sealed.slice(SEALED_PREFIX.length)).not.toContain(secret);
        expect(await b.open(sealed, triggerId)).toBe(secret);
      }),
      { numRuns: 200 },
    );
  });

  it("seals the same secret differently each time (a fresh data key and IV)", async () => {
    const b = box();
    expect(await b.seal("s3cret", "trg_1")).not.toBe(await b.seal("s3cret", "trg_1"));
  });

  it("does not open under another trigger, another webhook key, or after any change to the sealed form", async () => {
    const sealed = await box().seal("the webhook secret", "trg_1");
    await expect(box().open(sealed, "trg_2")).rejects.toThrow();
    await expect(box("another key material, long enough").open(sealed, "trg_1")).rejects.toThrow(/webhook key/);
    const parts = sealed.split(".");
    for (const i of [2, 3]) {
      const bytes = Buffer.from(parts[i]!, "base64url");
      bytes[bytes.length - 1]! ^= 1;
      const tampered = [...parts.slice(0, i), bytes.toString("base64url"), ...parts.slice(i + 1)].join(".");
      await expect(box().open(tampered, "trg_1")).rejects.toThrow();
    }
  });

  it("opens a secret stored before sealing as itself (it keeps working)", async () => {
    expect(await box().open("whsec_plain_old_secret", "trg_1")).toBe("whsec_plain_old_secret");
    expect(isSealed("whsec_plain_old_secret")).toBe(false);
  });

  it("makes the local key file once, readable by its owner only, and reads the same key after", () => {
    const file = path.join(dir, "nested", "webhook-key");
    const first = localKeyMaterial(file);
    expect(first.length).toBe(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(localKeyMaterial(file).equals(first)).toBe(true);
    expect(readFileSync(file, "utf8").trim()).toBe(first.toString("base64"));
  });
});
