import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invite, mailedToken, signUp } from "../support/accounts.js";
import { marketSplitProblem } from "../support/models.js";
import { isFinal, pollUntil } from "../support/poll.js";
import { type Api, startTestStack } from "../support/test-stack.js";

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/**
 * Issue 25, "admins cannot lock anyone out": no route removed a user or revoked another user's keys,
 * and an open event stream kept sending after its key was revoked (14 more events over 15 s). Also:
 * the Kelvin sign claimed `kelvin@k.test`, and sign-up and invitation told whether an address exists.
 */
describe("lock-out and revocation", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startTestStack({
      env: { INSTANCE_RATE_LIMIT_PER_MINUTE: "0", SOLVE_RATE_LIMIT_PER_MINUTE: "0", MODELS_READ_RATE_LIMIT_PER_MINUTE: "0", LOCAL_WORKERS: "1" },
    });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  /** A member of the bootstrap organization with a session and an API key. */
  async function member(email: string, role = "solver") {
    const made = await invite(stack.api, stack.mail, { email, role, password: "member password" });
    expect(made.status, made.text).toBe(201);
    const login = await stack.api.as(null).post("/api/v2/auth/login", { email, password: "member password" });
    const session = login.body.access_token as string;
    const key = await stack.api.as(session).post("/api/v2/keys", { name: "member key" });
    return { id: made.body.id as string, session, key: key.body.key as string, keyId: key.body.id as string };
  }

  /** An execution that runs for several seconds (jaos cannot finish this market split within its limit). */
  async function longSolve(api: Api): Promise<string> {
    const res = await api.post("/api/v2/solve/async", { problem: marketSplitProblem(5, 40, 7), solver_name: "jaos", settings: { time_limit_seconds: 8 } });
    expect(res.status, res.text).toBe(202);
    await pollUntil(stack.api, `/api/v2/models/executions/${res.body.execution_id}`, (b) => b.status === "running", { timeoutMs: 60_000, everyMs: 100 });
    return res.body.execution_id;
  }

  /** Opens the execution's event stream with `token`; resolves when the stream ends, with its events and when it ended. */
  async function openStream(executionId: string, token: string) {
    const res = await fetch(`${stack.url}/api/v2/models/executions/${executionId}/events`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const events: string[] = [];
    const ended = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        for (const m of decoder.decode(chunk, { stream: true }).matchAll(/^event: ?(\w+)$/gm)) events.push(m[1]!);
      }
      return Date.now();
    })();
    return { events, ended };
  }

  it("an admin revokes another member's key: it stops at once, and the stream it opened ends before its solve does", async () => {
    const m = await member("revoked-key@example.test");
    const executionId = await longSolve(stack.api.as(m.key));
    const stream = await openStream(executionId, m.key);
    const listed = await stack.api.get(`/api/v2/users/${m.id}/keys`);
    expect(listed.body.keys.map((k: { id: string }) => k.id)).toContain(m.keyId);
    const revoked = await stack.api.delete(`/api/v2/users/${m.id}/keys/${m.keyId}`);
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.status).toBe("revoked");
    expect((await stack.api.as(m.key).get("/api/v2/auth/me")).status).toBe(401);

    const endedAt = await stream.ended;
    const execution = await pollUntil(stack.api, `/api/v2/models/executions/${executionId}`, isFinal, { timeoutMs: 60_000, everyMs: 200 });
    expect(stream.events).not.toContain("final");
    expect(endedAt).toBeLessThan(Date.parse(execution.completed_at));
    // The member's session is theirs still: only the key was revoked.
    expect((await stack.api.as(m.session).get("/api/v2/auth/me")).status).toBe(200);
  }, 120_000);

  it("an admin removes a user: their sessions and keys stop at once, their open stream ends, and the address can be invited again", async () => {
    const m = await member("removed@example.test");
    const executionId = await longSolve(stack.api.as(m.key));
    const stream = await openStream(executionId, m.session);
    expect((await stack.api.delete(`/api/v2/users/${m.id}`)).status).toBe(204);
    for (const token of [m.session, m.key]) expect((await stack.api.as(token).get("/api/v2/auth/me")).status).toBe(401);
    expect((await stack.api.as(null).post("/api/v2/auth/login", { email: "removed@example.test", password: "member password" })).status).toBe(401);
    expect((await stack.api.get("/api/v2/users")).body.users.map((u: { email: string }) => u.email)).not.toContain("removed@example.test");

    const endedAt = await stream.ended;
    const execution = await pollUntil(stack.api, `/api/v2/models/executions/${executionId}`, isFinal, { timeoutMs: 60_000, everyMs: 200 });
    expect(stream.events).not.toContain("final");
    expect(endedAt).toBeLessThan(Date.parse(execution.completed_at));

    const again = await invite(stack.api, stack.mail, { email: "removed@example.test", role: "viewer", password: "a new password" });
    expect(again.status, again.text).toBe(201);
    expect(again.body.id).not.toBe(m.id);
    expect((await stack.api.delete(`/api/v2/users/${m.id}`)).status).toBe(404);
  }, 120_000);

  it("keeps the rules of who removes whom: admins not owners, never the last owner, never another organization's user, never a viewer", async () => {
    const admin = await member("an-admin@example.test", "admin");
    const viewer = await member("a-viewer@example.test", "viewer");
    const asAdmin = stack.api.as(admin.key);
    const owner = (await stack.api.get("/api/v2/auth/me")).body;
    expect((await asAdmin.delete(`/api/v2/users/${owner.id}`)).status).toBe(403);
    expect((await stack.api.delete(`/api/v2/users/${owner.id}`)).status).toBe(409);
    expect((await stack.api.as(viewer.key).delete(`/api/v2/users/${admin.id}`)).status).toBe(403);
    expect((await stack.api.as(viewer.key).get(`/api/v2/users/${admin.id}/keys`)).status).toBe(403);
    // An admin may revoke the owner's keys (any key of the organization); the owner signs in again.
    const ownerKeys = (await asAdmin.get(`/api/v2/users/${owner.id}/keys`)).body.keys;
    expect(ownerKeys.length).toBeGreaterThan(0);

    const stranger = await signUp(stack.api.as(null), stack.mail, {
      organization_name: "Elsewhere",
      email: "stranger@example.test",
      password: "stranger password",
    });
    expect(stranger.status).toBe(201);
    expect((await asAdmin.delete(`/api/v2/users/${stranger.body.id}`)).status).toBe(404);
    expect((await asAdmin.get(`/api/v2/users/${stranger.body.id}/keys`)).status).toBe(404);
    expect((await asAdmin.delete(`/api/v2/users/${viewer.id}`)).status).toBe(204);
  }, 120_000);
});

describe("addresses: one per account, compared in NFKC case-folded, never revealed", () => {
  let stack: Stack;
  beforeAll(async () => {
    // Nothing in the background touches the table (no worker, no scheduler tick, no sweep): the commands counted are the request's.
    stack = await startTestStack({
      env: {
        INSTANCE_RATE_LIMIT_PER_MINUTE: "0",
        AUTH_SIGNUP_RATE_LIMIT_PER_MINUTE: "0",
        AUTH_SIGNUP_RATE_LIMIT_PER_DAY: "0",
        LOCAL_WORKERS: "0",
        LOCAL_SCHEDULER_TICK_MS: "3600000",
        SWEEP_INTERVAL_SECONDS: "3600",
      },
    });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  /** The DynamoDB commands a request makes, in order, and the mail it sends (in-process app: the same services). */
  async function work(request: () => Promise<{ status: number; text: string }>) {
    const commands: string[] = [];
    const doc = stack.services.table.doc as unknown as { send: (command: { constructor: { name: string } }) => Promise<unknown> };
    const send = doc.send.bind(doc);
    doc.send = (command) => {
      commands.push(command.constructor.name);
      return send(command);
    };
    const mailed = stack.mail.length;
    try {
      const res = await request();
      return { status: res.status, text: res.text, commands, mails: stack.mail.length - mailed };
    } finally {
      doc.send = send;
    }
  }

  it("does not let the Kelvin sign (or fullwidth letters) claim kelvin@k.test", async () => {
    const anon = stack.api.as(null);
    const first = await signUp(anon, stack.mail, { organization_name: "K", email: "kelvin@k.test", password: "kelvin password" });
    expect(first.status, first.text).toBe(201);
    for (const lookalike of ["\u212aelvin@k.test", "\uff4belvin@k.test", "KELVIN@K.TEST"]) {
      const asked = await anon.post("/api/v2/auth/signup", { organization_name: "K2", email: lookalike, password: "another password" });
      expect(asked.status, lookalike).toBe(202);
      // The mail goes to the account's address and carries no token: nothing can be confirmed.
      const notice = stack.mail.at(-1)!;
      expect(notice.to).toBe("kelvin@k.test");
      expect(notice.body).not.toMatch(/inc_sgn_/);
    }
    const users = await stack.services.identity.findUserByEmail("\u212aelvin@k.test");
    expect(users?.id).toBe(first.body.id);
    const login = await anon.post("/api/v2/auth/login", { email: "\u212aelvin@k.test", password: "kelvin password" });
    expect(login.status).toBe(200);
  });

  it("answers sign-up the same, with the same work, for a taken and a free address", async () => {
    const anon = stack.api.as(null);
    await signUp(anon, stack.mail, { organization_name: "T", email: "taken@example.test", password: "password taken" });
    const taken = await work(() => anon.post("/api/v2/auth/signup", { organization_name: "X", email: "taken@example.test", password: "password x1" }));
    const free = await work(() => anon.post("/api/v2/auth/signup", { organization_name: "X", email: "free@example.test", password: "password x1" }));
    expect(taken.status).toBe(202);
    expect(free.status).toBe(202);
    expect(taken.text.replace(/req_\w+/g, "")).toBe(free.text.replace(/req_\w+/g, ""));
    expect(taken.commands).toEqual(free.commands);
    expect([taken.mails, free.mails]).toEqual([1, 1]);
    // Only the free address's mailbox can finish it.
    expect((await anon.post("/api/v2/auth/signup/confirm", { token: mailedToken(stack.mail, "free@example.test", "sgn") })).status).toBe(201);
    expect((await anon.post("/api/v2/auth/signup/confirm", { token: mailedToken(stack.mail, "free@example.test", "sgn") })).status).toBe(400);
  });

  it("answers an invitation the same, with the same work, for a taken and a free address", async () => {
    await signUp(stack.api.as(null), stack.mail, { organization_name: "Other org", email: "elsewhere@example.test", password: "password else" });
    // The owner's key is looked up once before (then cached), so neither measured request pays for it.
    await stack.api.get("/api/v2/auth/me");
    const taken = await work(() => stack.api.post("/api/v2/users", { email: "elsewhere@example.test", role: "viewer" }));
    const free = await work(() => stack.api.post("/api/v2/users", { email: "newcomer@example.test", role: "viewer" }));
    expect(taken.status).toBe(202);
    expect(free.status).toBe(202);
    expect(taken.text.replace(/req_\w+/g, "")).toBe(free.text.replace(/req_\w+/g, ""));
    expect(taken.commands).toEqual(free.commands);
    expect([taken.mails, free.mails]).toEqual([1, 1]);
    const accepted = await stack.api
      .as(null)
      .post("/api/v2/auth/invitations/accept", { token: mailedToken(stack.mail, "newcomer@example.test", "inv"), password: "newcomer password" });
    expect(accepted.status, accepted.text).toBe(201);
    expect(accepted.body).toMatchObject({ email: "newcomer@example.test", role: "viewer", organization_id: stack.bootstrap.organizationId });
  });
});
