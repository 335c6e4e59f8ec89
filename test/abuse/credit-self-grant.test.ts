import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FuzzStack, type Organization, startFuzzStack } from "../fuzz/support/fuzz-stack.js";
import { operationsOf, RequestFactory } from "../fuzz/support/requests.js";

/**
 * Issue 25, "the economy is self-service": any owner, even one who signed up a minute ago, could
 * `POST /api/v2/credits/grant {"credits":100000000}`. Granting is now the instance operator's act, and
 * no route lets an organization owner raise its own balance: every operation of the OpenAPI document is
 * called as the owner (requests drawn from the document, valid and broken, as the fuzz suite draws
 * them), and the owner's balance never rises — nor another organization's.
 */
const PER_OPERATION = Number(process.env.SELF_GRANT_RUNS ?? 12);

describe("no route lets an organization owner raise its own credit balance", () => {
  let stack: FuzzStack;
  let own: Organization;
  let other: Organization;

  beforeAll(async () => {
    stack = await startFuzzStack();
    own = await stack.seedOrganization("own");
    other = await stack.seedOrganization("other");
  }, 180_000);
  afterAll(() => stack?.stop());

  const balance = async (org: Organization) => (await stack.services.identity.getOrganization(org.orgId))!.credit_balance;

  it("refuses the grant to an owner's key and session, whatever organization it names (403), and to no credential (401)", async () => {
    const before = await balance(own);
    for (const [credential, status] of [
      [`Bearer ${own.apiKey}`, 403],
      [`Bearer ${own.ids.session![0]}`, 403],
      [`Bearer ${other.apiKey}`, 403],
      ["Bearer inc_op_guessed", 401],
      ["", 401],
    ] as const) {
      for (const organization_id of [own.orgId, other.orgId]) {
        const res = await stack.call("POST", "/api/v2/credits/grant", {
          headers: { "content-type": "application/json", ...(credential ? { authorization: credential } : {}) },
          body: JSON.stringify({ organization_id, credits: 100_000_000 }),
        });
        expect(res.status, `${credential.slice(0, 20)} → ${organization_id}`).toBe(status);
      }
    }
    expect(await balance(own)).toBe(before);
  });

  it("raises no balance through any operation called as the owner", async () => {
    const doc = (await (await stack.call("GET", "/api/v2/openapi.json")).json()) as Record<string, any>;
    const factory = new RequestFactory(doc, { own, other });
    const operations = operationsOf(doc).sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"));
    expect(operations.length).toBeGreaterThan(50);
    let last = { own: await balance(own), other: await balance(other) };
    let sent = 0;
    for (const o of operations) {
      for (const r of fc.sample(factory.arbitrary(o), { numRuns: PER_OPERATION, seed: 2025 })) {
        const res = await stack.call(r.method, r.url, { headers: r.headers, body: r.body });
        await res.body?.cancel().catch(() => undefined);
        sent++;
        const now = { own: await balance(own), other: await balance(other) };
        expect(now.own, `${r.method} ${r.url} [${r.why}] → ${res.status} raised the owner's balance`).toBeLessThanOrEqual(last.own);
        expect(now.other, `${r.method} ${r.url} [${r.why}] → ${res.status} raised another organization's balance`).toBeLessThanOrEqual(last.other);
        last = now;
      }
    }
    console.info(`self-grant: ${sent} requests over ${operations.length} operations; the owner's balance never rose`);
  }, 900_000);
});
