import fc from "fast-check";
import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TriggerInputError } from "../../../../../functions/core/errors.js";
import { overrideSchemaIssues, resolveRunInput, type CheckedField } from "../../../../../functions/core/triggers/overrides.js";
import { DestinationRefused, guardedLookup, isRefusedAddress, refusedHost, webhookUrlProblem } from "../../../../../functions/core/webhooks/destination.js";
import { postWebhook } from "../../../../../functions/core/webhooks/http-post.js";
import { parseRetryAfter, retryDelaySeconds } from "../../../../../functions/core/webhooks/schedule.js";
import { bodySignatureHex, deliveryHeaders, standardWebhooksSignature } from "../../../../../functions/core/webhooks/signing.js";

describe("signing", () => {
  it("matches the Standard Webhooks reference vector", () => {
    // The test vector published with the Standard Webhooks libraries.
    expect(
      standardWebhooksSignature("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", {
        id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
        timestampSeconds: 1614265330,
        rawBody: '{"test": 2432232314}',
      }),
    ).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("X-Incumbent-Signature is the hex HMAC-SHA256 of the raw body with the secret's bytes", () => {
    const body = '{"event":"trigger.run.completed","n":1.5}';
    expect(bodySignatureHex("s3cret-s3cret-s3cret", body)).toBe(createHmac("sha256", "s3cret-s3cret-s3cret").update(body).digest("hex"));
    expect(bodySignatureHex("s3cret-s3cret-s3cret", `${body} `)).not.toBe(bodySignatureHex("s3cret-s3cret-s3cret", body));
  });

  it("a plain (non-whsec_) secret keys Standard Webhooks with its UTF-8 bytes; the timestamp is signed", () => {
    const sig = standardWebhooksSignature("plain-secret-value", { id: "dlv_1", timestampSeconds: 1700000000, rawBody: "{}" });
    expect(sig).toBe(`v1,${createHmac("sha256", "plain-secret-value").update("dlv_1.1700000000.{}").digest("base64")}`);
    expect(standardWebhooksSignature("plain-secret-value", { id: "dlv_1", timestampSeconds: 1700000001, rawBody: "{}" })).not.toBe(sig);
    const headers = deliveryHeaders("plain-secret-value", { id: "dlv_1", timestampSeconds: 1700000000, rawBody: "{}" });
    expect(headers).toMatchObject({ "Content-Type": "application/json", "webhook-id": "dlv_1", "webhook-timestamp": "1700000000", "webhook-signature": sig });
    expect(JSON.stringify(headers)).not.toContain("plain-secret-value");
  });
});

describe("destination guard", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.255.0.9", true],
    ["10.1.2.3", true],
    ["172.16.0.1", true],
    ["172.31.255.255", true],
    ["192.168.1.1", true],
    ["169.254.169.254", true],
    ["100.64.0.1", true],
    ["0.0.0.0", true],
    ["224.0.0.1", true],
    ["255.255.255.255", true],
    ["::1", true],
    ["::", true],
    ["fe80::1", true],
    ["fc00::1", true],
    ["fd00:ec2::254", true],
    ["ff02::1", true],
    ["::ffff:127.0.0.1", true],
    ["::ffff:7f00:1", true],
    ["::ffff:10.0.0.1", true],
    ["64:ff9b::a9fe:a9fe", true],
    ["[::1]", true],
    ["fe80::1%eth0", true],
    ["not-an-ip", true],
    ["8.8.8.8", false],
    ["172.32.0.1", false],
    ["192.169.0.1", false],
    ["1.1.1.1", false],
    ["2606:4700:4700::1111", false],
    ["::ffff:8.8.8.8", false],
    // Issue 25: every IPv6 form that maps a loopback or private IPv4, and IPv6 blocks that are never public.
    ["::127.0.0.1", true],
    ["::7f00:1", true],
    ["::ffff:0:127.0.0.1", true],
    ["::ffff:0:7f00:1", true],
    ["64:ff9b:1::7f00:1", true],
    ["64:ff9b:1::808:808", true],
    ["2002:7f00:1::", true],
    ["2002:a9fe:a9fe::1", true],
    ["2002:c0a8:101::", true],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", true],
    ["3fff::1", true],
    ["2002:808:808::", false],
    ["64:ff9b::808:808", false],
  ])("%s refused: %s", (address, refused) => {
    expect(isRefusedAddress(address)).toBe(refused);
  });

  it("checks webhook URLs without DNS at create and update", () => {
    expect(webhookUrlProblem("https://hooks.example.com/x?token=1", { allowPrivate: false })).toBeNull();
    expect(webhookUrlProblem("ftp://example.com/", { allowPrivate: false })).toContain("http or https");
    expect(webhookUrlProblem("https://user:pw@example.com/", { allowPrivate: false })).toContain("credentials");
    expect(webhookUrlProblem("http://localhost:8080/", { allowPrivate: false })).toContain("localhost");
    expect(webhookUrlProblem("http://169.254.169.254/latest/meta-data", { allowPrivate: false })).toContain("private");
    expect(webhookUrlProblem("http://[::1]:9000/", { allowPrivate: false })).toContain("private");
    expect(webhookUrlProblem("http://127.0.0.1:9000/", { allowPrivate: true })).toBeNull();
    expect(webhookUrlProblem("not a url", { allowPrivate: true })).toContain("not a valid URL");
  });

  it("refuses at save time the forms issue 25 found let through (delivery refused them), trailing-dot names included", () => {
    for (const url of [
      "http://[::127.0.0.1]/",
      "http://[::ffff:0:127.0.0.1]/",
      "http://[64:ff9b:1::7f00:1]/",
      "http://[2002:7f00:1::]/",
      "http://localhost./",
      "http://LocalHost../x",
      "http://api.localhost./",
      "http://127.0.0.1./",
      "http://0177.0.0.1/",
      "http://2130706433/",
    ]) {
      expect(webhookUrlProblem(url, { allowPrivate: false }), url).toMatch(/must not point/);
      expect(refusedHost(new URL(url).hostname), url).not.toBeNull();
    }
    expect(webhookUrlProblem("http://localhost.example.com/", { allowPrivate: false })).toBeNull();
  });

  it("refuses every embedding of a refused IPv4 in any IPv6 form, in any spelling, and none of a public one (generated)", () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const ipv4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join("."));
    const hex = (a: string) => {
      const o = a.split(".").map(Number);
      return [((o[0]! << 8) | o[1]!).toString(16), ((o[2]! << 8) | o[3]!).toString(16)];
    };
    const forms: ((v4: string) => string)[] = [
      (v4) => `::${v4}`,
      (v4) => `::${hex(v4).join(":")}`,
      (v4) => `::ffff:${v4}`,
      (v4) => `0:0:0:0:0:ffff:${hex(v4).join(":")}`,
      (v4) => `::ffff:0:${v4}`,
      (v4) => `64:ff9b::${v4}`,
      (v4) => `64:ff9b:0:0:0:0:${hex(v4).join(":")}`,
      (v4) => `2002:${hex(v4).join(":")}::1`,
    ];
    fc.assert(
      fc.property(ipv4, fc.integer({ min: 0, max: forms.length - 1 }), (v4, f) => {
        const v6 = forms[f]!(v4);
        expect(isRefusedAddress(v6), `${v6} carries ${v4}`).toBe(isRefusedAddress(v4));
        // The rule at save time is the delivery's: the URL's host is checked by the same function.
        expect(refusedHost(new URL(`http://[${v6}]/`).hostname) !== null).toBe(isRefusedAddress(v4));
      }),
      { numRuns: 3_000 },
    );
  });
});

describe("retry schedule", () => {
  const delays = [30, 120, 600];
  it("the n-th failed attempt waits the n-th delay ±20 %, and the last attempt has no successor", () => {
    expect(retryDelaySeconds(delays, { failedAttempt: 1, retryAfterSeconds: null, random: () => 0 })).toBeCloseTo(24);
    expect(retryDelaySeconds(delays, { failedAttempt: 1, retryAfterSeconds: null, random: () => 0.999999 })).toBeCloseTo(36, 3);
    expect(retryDelaySeconds(delays, { failedAttempt: 2, retryAfterSeconds: null, random: () => 0.5 })).toBe(120);
    expect(retryDelaySeconds(delays, { failedAttempt: 3, retryAfterSeconds: null, random: () => 0.5 })).toBe(600);
    expect(retryDelaySeconds(delays, { failedAttempt: 4, retryAfterSeconds: null, random: () => 0.5 })).toBeNull();
    expect(retryDelaySeconds([], { failedAttempt: 1, retryAfterSeconds: null })).toBeNull();
  });

  it("Retry-After lengthens a wait, never shortens it, capped at the longest step", () => {
    expect(retryDelaySeconds(delays, { failedAttempt: 1, retryAfterSeconds: 90, random: () => 0.5 })).toBe(90);
    expect(retryDelaySeconds(delays, { failedAttempt: 1, retryAfterSeconds: 5, random: () => 0.5 })).toBe(30);
    expect(retryDelaySeconds(delays, { failedAttempt: 1, retryAfterSeconds: 1_000_000, random: () => 0.5 })).toBe(600);
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(parseRetryAfter("120", now)).toBe(120);
    expect(parseRetryAfter("Thu, 01 Jan 2026 12:02:00 GMT", now)).toBe(120);
    expect(parseRetryAfter("Thu, 01 Jan 2026 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});

describe("override rules", () => {
  const fields: CheckedField[] = [
    { name: "capacity", type: "number", required: true, default: 5 },
    { name: "ITEMS", type: "array", required: true },
    { name: "solver_name", type: "string", required: false },
  ];
  const chain = { version: "highs" as const, chosen: "cbc" as const, available: new Set(["cbc", "highs"]) };
  const refusal = (sent: Record<string, unknown>, c = chain) => {
    try {
      resolveRunInput(fields, sent, c);
    } catch (error) {
      return error as TriggerInputError;
    }
    throw new Error("accepted");
  };

  it("applies defaults; the order is version solver, then the trigger's, then an override's", () => {
    expect(resolveRunInput(fields, { ITEMS: ["a"] }, chain)).toEqual({
      effective: { capacity: 5, ITEMS: ["a"] },
      modelOverrides: { capacity: 5, ITEMS: ["a"] },
      solver: "cbc",
    });
    expect(resolveRunInput(fields, { ITEMS: [] }, { ...chain, chosen: null }).solver).toBe("highs");
    expect(resolveRunInput(fields, { ITEMS: [], solver_name: "highs", capacity: 2 }, chain)).toMatchObject({
      solver: "highs",
      modelOverrides: { capacity: 2, ITEMS: [] },
    });
    expect(resolveRunInput([{ name: "solver_name", type: "string", required: false, default: "auto" }], {}, chain).solver).toBe("auto");
  });

  it("refuses unknown fields first, then missing required ones, then the solver; types are the compiler's to check", () => {
    expect(refusal({ x: 1, capacity: "wrong" })).toMatchObject({ fireCode: "trigger.override_unknown_fields", params: { unknown_fields: ["x"] } });
    expect(refusal({ capacity: "wrong" })).toMatchObject({ fireCode: "trigger.override_missing_required", params: { missing_fields: ["ITEMS"] } });
    expect(resolveRunInput(fields, { ITEMS: {}, capacity: 1 }, chain).modelOverrides).toEqual({ ITEMS: {}, capacity: 1 });
    expect(refusal({ ITEMS: [], solver_name: "glpk" })).toMatchObject({
      fireCode: "trigger.solver_unavailable",
      params: { solver_name: "glpk", available_solvers: ["cbc", "highs"] },
    });
    expect(refusal({ ITEMS: [] }, { ...chain, chosen: "scip" as never })).toMatchObject({ fireCode: "trigger.solver_unavailable" });
    expect(refusal({ ITEMS: [], solver_name: 7 })).toMatchObject({ fireCode: "trigger.solver_unavailable", params: { solver_name: "7" } });
    expect(refusal({ x: 1 }).body()).toEqual({
      detail: { error: expect.any(String), run_id: null },
      code: "trigger.override_unknown_fields",
      params: expect.any(Object),
      status_code: 422,
    });
  });

  it("checks an override schema against the model's data-given names", () => {
    const issues = overrideSchemaIssues(
      [
        { name: "capacity", type: "number", required: false },
        { name: "capacity", type: "number", required: false },
        { name: "cost", type: "object", required: false },
        { name: "weight", type: "object", required: false, default: [1] },
        { name: "solver_name", type: "string", required: false, default: "gurobi" },
      ],
      ["capacity", "weight"],
      ["body", "override_schema"],
    );
    expect(issues.map((i) => i.loc.join("."))).toEqual([
      "body.override_schema.1.name",
      "body.override_schema.2.name",
      "body.override_schema.3.default",
      "body.override_schema.4.default",
    ]);
  });
});

describe("one delivery attempt over HTTP", () => {
  let server: http.Server;
  let base = "";
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === "/redirect") return void res.writeHead(302, { location: "/ok" }).end();
      if (req.url === "/slow") return void setTimeout(() => res.writeHead(200).end(), 2000);
      if (req.url === "/busy") return void res.writeHead(429, { "retry-after": "42" }).end();
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const allow = { timeoutMs: 1000, allowPrivateNetworks: true };

  it("any 2xx is a status; a redirect is not followed; Retry-After is read", async () => {
    expect(await postWebhook(`${base}/ok`, { body: "{}", headers: {} }, allow)).toMatchObject({ statusCode: 204, error: null });
    expect(await postWebhook(`${base}/redirect`, { body: "{}", headers: {} }, allow)).toMatchObject({ statusCode: 302 });
    expect(await postWebhook(`${base}/busy`, { body: "{}", headers: {} }, allow)).toMatchObject({ statusCode: 429, retryAfter: "42" });
  });

  it("times out", async () => {
    const out = await postWebhook(`${base}/slow`, { body: "{}", headers: {} }, { ...allow, timeoutMs: 300 });
    expect(out).toMatchObject({ statusCode: null, refused: false });
    expect(out.error).toContain("no response"); // the server below never answers /slow in time
  });

  it("refuses loopback destinations, by IP literal or by name, unless private networks are allowed", async () => {
    const deny = { ...allow, allowPrivateNetworks: false };
    expect(await postWebhook(`${base}/ok`, { body: "{}", headers: {} }, deny)).toMatchObject({ statusCode: null, refused: true });
    const byName = await postWebhook(`${base.replace("127.0.0.1", "localhost")}/ok`, { body: "{}", headers: {} }, deny);
    expect(byName).toMatchObject({ statusCode: null, refused: true });
    // The name is refused by the same rule as at save time, before DNS; a name that resolves to loopback is the lookup guard's.
    expect(byName.error).toMatch(/is localhost/);
  });

  it("refuses a name whose lookup gives a loopback address in the connection's own lookup (the DNS rebinding guard)", async () => {
    const error = await new Promise<Error | null>((resolve) => guardedLookup({ allowPrivate: false })("localhost", { all: false }, (e) => resolve(e)));
    expect(error).toBeInstanceOf(DestinationRefused);
    expect(error!.message).toMatch(/resolves to/);
  });
});
