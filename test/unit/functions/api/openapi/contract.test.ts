import { describe, expect, it } from "vitest";
import { routesOf } from "../../../../../functions/api/http/route.js";
import { buildOpenApi } from "../../../../../functions/api/openapi/document.js";
import { Contract, ContractViolation } from "../../../../support/contract.js";
import { fakeApp } from "../../../../support/fake-api.js";

const contract = new Contract(buildOpenApi(routesOf(fakeApp().app), { version: "test" }));
const headers = (type = "application/json") => new Headers({ "content-type": type, "x-request-id": "req_1" });
const response = (status: number, body: unknown) => ({ status, headers: headers(), body, text: JSON.stringify(body) });
const balance = { organization_id: "org_1", credits_remaining: 5, credit_price_eur: 0.01, balance_eur: 0.05 };

describe("the test client's response contract", () => {
  it("accepts a documented status and body", () => {
    expect(() => contract.validate("GET", "/api/v2/credits/balance", response(200, balance))).not.toThrow();
    const quota = {
      detail: "d",
      error_code: "daily_solve_quota_exceeded",
      error: "daily_solve_quota_exceeded",
      status_code: 403,
      needed: 3,
      spent: 2,
      limit: 5,
      used_today: 5,
    };
    expect(() => contract.validate("POST", "/api/v2/solvers/compare", response(403, quota))).not.toThrow();
  });

  it("fails on a field the document does not name", () => {
    expect(() => contract.validate("GET", "/api/v2/credits/balance", response(200, { ...balance, secret: "x" }))).toThrow(ContractViolation);
    const notFound = { detail: "d", error_code: "not_found", error: "not_found", status_code: 404, hint: "x" };
    expect(() => contract.validate("GET", "/api/v2/solvers/compare/cmp_1", response(404, notFound))).toThrow(/does not match/);
  });

  it("fails on a status the operation does not document, and on an error name it does not answer", () => {
    expect(() =>
      contract.validate("GET", "/api/v2/credits/balance", response(409, { detail: "d", error_code: "conflict", error: "conflict", status_code: 409 })),
    ).toThrow(/not documented/);
    const credits = {
      detail: "d",
      error_code: "insufficient_credits",
      error: "insufficient_credits",
      status_code: 403,
      credits_required: 1,
      credits_remaining: 0,
    };
    expect(() => contract.validate("POST", "/api/v2/workspaces", response(403, credits))).toThrow(ContractViolation);
  });

  it("expects 404 NotFound for an unknown path and 405 for a known path with another method", () => {
    const nf = { detail: "d", error_code: "not_found", error: "not_found", status_code: 404 };
    expect(() => contract.validate("GET", "/api/v2/nope", response(404, nf))).not.toThrow();
    expect(() => contract.validate("GET", "/api/v2/nope", response(200, {}))).toThrow(/404 was due/);
    expect(() => contract.validate("PUT", "/api/v2/keys", response(404, nf))).toThrow(/405 was due/);
  });
});
