import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../functions/core/clock.js";
import { invite, signUp } from "../support/accounts.js";
import { startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;
let stack: Stack;
const clock = new ManualClock(Date.UTC(2026, 10, 21, 9, 0, 0));

beforeAll(async () => {
  // A high request limit: this file makes many requests in one (frozen) minute.
  // The owner is seeded as `a@b.c`: the one e-mail rule must let the same address sign in.
  stack = await startTestStack({ clock, env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", API_KEY_CACHE_SECONDS: "0" }, bootstrap: { email: "a@b.c" } });
});
afterAll(() => stack?.stop());

async function newUser(email: string) {
  const signup = await signUp(stack.api.as(null), stack.mail, { organization_name: `org of ${email}`, email, password: "password 123" });
  expect(signup.status).toBe(201);
  const login = await stack.api.as(null).post("/api/v2/auth/login", { email, password: "password 123" });
  expect(login.status).toBe(200);
  return stack.api.as(login.body.access_token);
}

describe("API keys: live-key cap per user", () => {
  it("answers the 26th live key with 409 naming 25; a revoked key frees its slot at once", async () => {
    const user = await newUser("cap@example.test");
    const ids: string[] = [];
    const plaintexts: string[] = [];
    for (let i = 1; i <= 25; i++) {
      const res = await user.post("/api/v2/keys", { name: `key ${i}` });
      expect(res.status, `key ${i}`).toBe(201);
      expect(res.body.key).toMatch(/^inc_key_/);
      expect(res.body.prefix).toBe(res.body.key.slice(0, 12));
      ids.push(res.body.id);
      plaintexts.push(res.body.key);
    }
    const refused = await user.post("/api/v2/keys", { name: "key 26" });
    expect(refused.status).toBe(409);
    expect(refused.body.error_code).toBe("api_key_limit_reached");
    expect(refused.body.detail).toContain("25");
    expect(refused.body.limit).toBe(25);

    const revoked = await user.delete(`/api/v2/keys/${ids[3]}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe("revoked");
    expect((await user.post("/api/v2/keys", { name: "key 26" })).status).toBe(201);
    expect((await user.post("/api/v2/keys", { name: "key 27" })).status).toBe(409);

    const list = await user.get("/api/v2/keys");
    expect(list.body.keys).toHaveLength(26);
    // The list reads the revocation back (the key was created with revoked_at null).
    expect(list.body.keys.find((k: { id: string }) => k.id === ids[3])).toMatchObject({ status: "revoked", revoked_at: revoked.body.revoked_at });
    const listed = JSON.stringify(list.body);
    for (const key of plaintexts) expect(listed).not.toContain(key);
  });

  it("does not count expired keys, and an expired key no longer authenticates", async () => {
    const user = await newUser("expiry@example.test");
    const short = await user.post("/api/v2/keys", { name: "short-lived", expires_in_days: 1 });
    expect(short.status).toBe(201);
    for (let i = 0; i < 24; i++) expect((await user.post("/api/v2/keys", { name: `k${i}` })).status).toBe(201);
    expect((await user.post("/api/v2/keys", { name: "one too many" })).status).toBe(409);
    expect((await stack.api.as(short.body.key).get("/api/v2/auth/me")).status).toBe(200);

    clock.advance(86_400_000 + 1000);
    expect((await stack.api.as(short.body.key).get("/api/v2/auth/me")).status).toBe(401);
    const fresh = await user.as(null).post("/api/v2/auth/login", { email: "expiry@example.test", password: "password 123" });
    const again = user.as(fresh.body.access_token);
    expect((await again.post("/api/v2/keys", { name: "after expiry" })).status).toBe(201);
    const keys = (await again.get("/api/v2/keys")).body.keys as { name: string; status: string }[];
    expect(keys.find((k) => k.name === "short-lived")?.status).toBe("expired");
  });

  it("has no ceiling when the cap is 0", async () => {
    const unlimited = await startTestStack({ env: { AUTH_MAX_ACTIVE_API_KEYS_PER_USER: "0", INSTANCE_RATE_LIMIT_PER_MINUTE: "0" } });
    try {
      for (let i = 0; i < 30; i++) expect((await unlimited.api.post("/api/v2/keys", { name: `n${i}` })).status).toBe(201);
    } finally {
      await unlimited.stop();
    }
  });

  it("refuses a second live key with the same name (409) and a revoked key authenticates no more", async () => {
    const user = await newUser("names@example.test");
    const a = await user.post("/api/v2/keys", { name: "ci" });
    expect((await user.post("/api/v2/keys", { name: "ci" })).status).toBe(409);
    expect((await stack.api.as(a.body.key).get("/api/v2/auth/me")).body.credential).toBe("api_key");
    await user.delete(`/api/v2/keys/${a.body.id}`);
    const after = await stack.api.as(a.body.key).get("/api/v2/auth/me");
    expect(after.status).toBe(401);
    expect(after.body.error_code).toBe("unauthorized");
    expect((await user.post("/api/v2/keys", { name: "ci" })).status).toBe(201);
  });
});

describe("sign-in and password reset", () => {
  it("issues an expiring JWT, and a reset token works once and only before it expires; the 400 says whether it was used, expired or unknown", async () => {
    await newUser("reset@example.test");
    const anon = stack.api.as(null);
    expect((await anon.post("/api/v2/auth/login", { email: "reset@example.test", password: "wrong password" })).status).toBe(401);

    stack.mail.length = 0;
    expect((await anon.post("/api/v2/auth/password-reset", { email: "reset@example.test" })).status).toBe(202);
    expect((await anon.post("/api/v2/auth/password-reset", { email: "unknown@example.test" })).status).toBe(202);
    expect(stack.mail).toHaveLength(1);
    const token = /inc_rst_\w+/.exec(stack.mail[0]!.body)![0];

    expect((await anon.post("/api/v2/auth/password-reset/confirm", { token, new_password: "brand new password" })).status).toBe(200);
    const again = await anon.post("/api/v2/auth/password-reset/confirm", { token, new_password: "again new password" });
    expect([again.status, again.body.detail]).toEqual([400, "Reset token already used."]);
    expect((await anon.post("/api/v2/auth/login", { email: "reset@example.test", password: "password 123" })).status).toBe(401);
    const login = await anon.post("/api/v2/auth/login", { email: "reset@example.test", password: "brand new password" });
    expect(login.status).toBe(200);
    expect(login.body.expires_in).toBe(3600);

    stack.mail.length = 0;
    await anon.post("/api/v2/auth/password-reset", { email: "reset@example.test" });
    const late = /inc_rst_\w+/.exec(stack.mail[0]!.body)![0];
    clock.advance(3600_000 + 1);
    const tooLate = await anon.post("/api/v2/auth/password-reset/confirm", { token: late, new_password: "too late password" });
    expect([tooLate.status, tooLate.body.detail]).toEqual([400, "Reset token expired."]);
    const unknown = await anon.post("/api/v2/auth/password-reset/confirm", { token: "inc_rst_unknown", new_password: "some new password" });
    expect([unknown.status, unknown.body.detail]).toEqual([400, "Reset token invalid."]);

    // The session token from before has expired by now too.
    expect((await anon.as(login.body.access_token).get("/api/v2/auth/me")).status).toBe(401);
  });
});

describe("roles and workspaces", () => {
  it("lets admins add users and workspaces; a viewer reads but may not solve; another organization's ids are 404", async () => {
    const owner = stack.api;
    const viewer = await invite(owner, stack.mail, { email: "viewer@example.test", password: "viewer password", role: "viewer" });
    expect(viewer.status).toBe(201);
    expect(viewer.body.role).toBe("viewer");
    const login = await owner.as(null).post("/api/v2/auth/login", { email: "viewer@example.test", password: "viewer password" });
    const asViewer = owner.as(login.body.access_token);

    const solve = await asViewer.post("/api/v2/solve", { problem: { variables: [{ name: "x", ub: 1 }] } });
    expect(solve.status).toBe(403);
    expect(solve.body.error_code).toBe("forbidden");
    expect((await asViewer.get("/api/v2/solvers/compare")).status).toBe(200);
    expect((await asViewer.post("/api/v2/workspaces", { name: "nope" })).status).toBe(403);
    expect((await asViewer.post("/api/v2/users", { email: "x@example.test" })).status).toBe(403);

    const ws = await owner.post("/api/v2/workspaces", { name: "Planning" });
    expect(ws.status).toBe(201);
    const list = await owner.get("/api/v2/workspaces");
    expect(list.body.workspaces.map((w: { name: string }) => w.name)).toEqual(expect.arrayContaining(["Default", "Planning"]));
    const member = await owner.put(`/api/v2/workspaces/${ws.body.id}/members/${viewer.body.id}`, { role: "solver" });
    expect(member.body).toEqual({ workspace_id: ws.body.id, user_id: viewer.body.id, role: "solver" });
    expect((await owner.get("/api/v2/users")).body.users.map((u: { email: string }) => u.email)).toContain("viewer@example.test");

    const stranger = await newUser("stranger@example.test");
    expect((await stranger.put(`/api/v2/workspaces/${ws.body.id}/members/${viewer.body.id}`, { role: "solver" })).status).toBe(404);
  });
});

describe("one e-mail rule", () => {
  it("lets the bootstrap owner seeded as a@b.c sign in, and takes the same short addresses at sign-up; refuses what is no address at every door", async () => {
    const anon = stack.api.as(null);
    const owner = await anon.post("/api/v2/auth/login", { email: "A@B.C", password: "correct horse battery" });
    expect(owner.status, owner.text).toBe(200);
    expect((await anon.as(owner.body.access_token).get("/api/v2/auth/me")).body).toMatchObject({ email: "a@b.c", role: "owner" });
    const signup = await signUp(anon, stack.mail, { organization_name: "short", email: "x@y.z", password: "password 123" });
    expect(signup.status).toBe(201);
    expect((await anon.post("/api/v2/auth/login", { email: "x@y.z", password: "password 123" })).status).toBe(200);
    for (const bad of ["no-at-sign", "two@@example.test", "space in@example.test", "nodot@example"]) {
      expect((await anon.post("/api/v2/auth/signup", { organization_name: "o", email: bad, password: "password 123" })).status, bad).toBe(422);
      expect((await anon.post("/api/v2/auth/login", { email: bad, password: "password 123" })).status, bad).toBe(422);
    }
  });
});

describe("sessions end when they should", () => {
  it("ends every older session at once when the password is reset (401 on the next request); a new sign-in works", async () => {
    const anon = stack.api.as(null);
    await newUser("sessions@example.test");
    const first = await anon.post("/api/v2/auth/login", { email: "sessions@example.test", password: "password 123" });
    const second = await anon.post("/api/v2/auth/login", { email: "sessions@example.test", password: "password 123" });
    for (const s of [first, second]) expect((await anon.as(s.body.access_token).get("/api/v2/auth/me")).status).toBe(200);

    stack.mail.length = 0;
    await anon.post("/api/v2/auth/password-reset", { email: "sessions@example.test" });
    const token = /inc_rst_\w+/.exec(stack.mail[0]!.body)![0];
    expect((await anon.post("/api/v2/auth/password-reset/confirm", { token, new_password: "the newer password" })).status).toBe(200);

    for (const s of [first, second]) {
      const ended = await anon.as(s.body.access_token).get("/api/v2/auth/me");
      expect(ended.status).toBe(401);
      expect(ended.body.error_code).toBe("unauthorized");
    }
    const fresh = await anon.post("/api/v2/auth/login", { email: "sessions@example.test", password: "the newer password" });
    expect((await anon.as(fresh.body.access_token).get("/api/v2/auth/me")).status).toBe(200);
  });

  it("ends a user's sessions when an admin changes their role; the new session and the user's API keys carry the new role", async () => {
    const owner = stack.api;
    const added = await invite(owner, stack.mail, { email: "promoted@example.test", password: "password 123", role: "viewer" });
    expect(added.status).toBe(201);
    const anon = owner.as(null);
    const old = await anon.post("/api/v2/auth/login", { email: "promoted@example.test", password: "password 123" });
    const asOld = anon.as(old.body.access_token);
    const key = (await asOld.post("/api/v2/keys", { name: "mine" })).body.key as string;
    expect((await asOld.post("/api/v2/workspaces", { name: "nope" })).status).toBe(403);

    const changed = await owner.patch(`/api/v2/users/${added.body.id}`, { role: "admin" });
    expect(changed.status).toBe(200);
    expect(changed.body.role).toBe("admin");
    expect((await asOld.get("/api/v2/auth/me")).status).toBe(401);

    const renewed = await anon.post("/api/v2/auth/login", { email: "promoted@example.test", password: "password 123" });
    const asNew = anon.as(renewed.body.access_token);
    expect((await asNew.get("/api/v2/auth/me")).body.role).toBe("admin");
    expect((await asNew.post("/api/v2/workspaces", { name: "allowed now" })).status).toBe(201);
    expect((await anon.as(key).get("/api/v2/auth/me")).body.role).toBe("admin");

    // Only an owner grants the owner role; an admin may not.
    expect((await asNew.patch(`/api/v2/users/${added.body.id}`, { role: "owner" })).status).toBe(403);
    // The last owner keeps the role.
    const me = (await owner.get("/api/v2/auth/me")).body;
    expect((await owner.patch(`/api/v2/users/${me.id}`, { role: "admin" })).status).toBe(409);
  });
});
