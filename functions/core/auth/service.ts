import type { Services } from "../services.js";
import { epochSeconds, isoTime } from "../clock.js";
import { AppError, conflict, forbidden, invalid, notFound, unauthorized } from "../errors.js";
import { newId } from "../ids.js";
import { type ApiKeyLookup, type ApiKeyRecord, type OrganizationRecord, ResetTokenSpentError, type UserRecord } from "../identity/store.js";
import { isEmailAddress } from "./email.js";
import type { ApiKeyView } from "./schemas.js";
import { looksLikeJwt, signJwt, verifyJwt } from "./jwt.js";
import { effectiveWorkspaceRole, type Role } from "./roles.js";
import type { CreditLedger } from "../credits/ledger.js";
import { constantTimeEqual, dummyPasswordHash, generateSecret, hashPassword, secretPrefix, sha256Hex, verifyPassword } from "./secrets.js";

/** Who is calling: the result of authenticating a bearer credential. */
export interface Principal {
  kind: "api_key" | "session";
  userId: string;
  orgId: string;
  role: Role;
  keyId: string | null;
}

interface CachedLookup {
  lookup: ApiKeyLookup | null;
  until: number;
}

/**
 * Identity rules: sign-in, API keys (plaintext once, SHA-256 at rest, live-key cap per user),
 * password reset, organizations and users. Storage is the IdentityStore; time is the injected clock.
 */
export class AuthService {
  /** Key lookups cached in the process for `apiKeyCacheSeconds`: an authenticated read costs no GetItem. */
  private readonly keyCache = new Map<string, CachedLookup>();

  private readonly store: Services["identity"];
  private readonly config: Services["config"];
  private readonly clock: Services["clock"];
  private readonly jwtSecret: string;
  private readonly ledger: Pick<CreditLedger, "record"> | null;

  constructor(deps: Pick<Services, "identity" | "config" | "clock"> & { jwtSecret: string; ledger?: Pick<CreditLedger, "record"> }) {
    this.store = deps.identity;
    this.config = deps.config;
    this.clock = deps.clock;
    this.jwtSecret = deps.jwtSecret;
    this.ledger = deps.ledger ?? null;
  }

  /**
   * Whether `credential` is the instance operator's token (OPERATOR_TOKEN_SHA256 holds its SHA-256):
   * the one credential that grants credits. Compared in constant time; false when no operator is set.
   */
  isOperator(credential: string | null): boolean {
    const expected = this.config.operatorTokenSha256;
    if (!expected || !credential) return false;
    return constantTimeEqual(sha256Hex(credential), expected);
  }

  // Bootstrap, sign-up and users ----------------------------------------------------------------

  async createOrganizationWithOwner(input: { orgName: string; email: string; password?: string; passwordHash?: string; name?: string }): Promise<{
    org: OrganizationRecord;
    user: UserRecord;
  }> {
    const now = this.clock.now();
    const org: OrganizationRecord = {
      id: newId("org", now),
      name: input.orgName,
      credit_balance: this.config.creditsInitialGrant,
      default_workspace_id: newId("ws", now),
      created_at: isoTime(now),
    };
    await this.store.createOrganization(org);
    await this.ledger?.record(org.id, { kind: "initial_grant", credits: org.credit_balance, balance_after: org.credit_balance, note: null }, now);
    const user = await this.createUser(org.id, {
      email: input.email,
      password: input.password,
      passwordHash: input.passwordHash,
      name: input.name,
      role: "owner",
    });
    return { org, user };
  }

  /** A user with `password` (hashed here) or a `passwordHash` made earlier (a confirmed sign-up's). */
  async createUser(orgId: string, input: { email: string; password?: string; passwordHash?: string; name?: string; role: Role }): Promise<UserRecord> {
    if (!isEmailAddress(input.email)) throw invalid(["body", "email"], "must be an e-mail address (name@domain.tld)");
    const passwordHash = input.passwordHash ?? (input.password !== undefined ? await hashPassword(input.password) : null);
    if (passwordHash === null) throw new Error("createUser needs a password or its hash");
    const now = this.clock.now();
    const user: UserRecord = {
      id: newId("usr", now),
      org_id: orgId,
      email: input.email,
      name: input.name ?? input.email.split("@")[0]!,
      role: input.role,
      password_hash: passwordHash,
      created_at: isoTime(now),
    };
    if (!(await this.store.createUser(user))) throw conflict("A user with this e-mail address already exists.");
    return user;
  }

  // Sign-in -------------------------------------------------------------------------------------

  async login(email: string, password: string): Promise<{ access_token: string; token_type: "bearer"; expires_at: string; expires_in: number }> {
    const user = await this.store.findUserByEmail(email);
    // Verify against a dummy hash when the user is unknown, so timing does not tell accounts apart.
    const ok = await verifyPassword(password, user?.password_hash ?? (await dummyPasswordHash()));
    if (!user || !ok) throw unauthorized("Invalid e-mail address or password.");
    const now = epochSeconds(this.clock.now());
    const exp = now + this.config.jwtTtlSeconds;
    const token = signJwt({ sub: user.id, org: user.org_id, role: user.role, ver: user.token_version ?? 0, iat: now, exp, typ: "session" }, this.jwtSecret);
    return { access_token: token, token_type: "bearer", expires_at: isoTime(exp * 1000), expires_in: this.config.jwtTtlSeconds };
  }

  /**
   * Resolves `Authorization: Bearer <credential>` to a principal, with one GetItem: a session JWT reads
   * its user (strongly consistent, never cached: a password reset or a role change bumps the user's
   * token version, and every older session must fail on its next request, in every process); an API
   * key reads its lookup item (cached for API_KEY_CACHE_SECONDS). Anything else is 401 `unauthorized`.
   */
  async authenticate(credential: string | null, options: { fresh?: boolean } = {}): Promise<Principal> {
    if (!credential) throw unauthorized();
    if (looksLikeJwt(credential)) {
      const claims = verifyJwt(credential, this.jwtSecret, epochSeconds(this.clock.now()));
      if (!claims) throw unauthorized("Session token invalid or expired.");
      const user = await this.store.getUser(claims.sub);
      if (!user || user.removed_at || user.org_id !== claims.org || (user.token_version ?? 0) !== (claims.ver ?? 0)) {
        throw unauthorized("Session ended (the password was reset, the role changed or the user was removed); sign in again.");
      }
      return { kind: "session", userId: user.id, orgId: user.org_id, role: user.role, keyId: null };
    }
    const hash = sha256Hex(credential);
    const lookup = options.fresh ? await this.store.findApiKeyByHash(hash) : await this.lookupKey(hash);
    const now = this.clock.now();
    if (!lookup || lookup.revoked || (lookup.expires_at_ms !== null && lookup.expires_at_ms <= now)) {
      throw unauthorized("API key invalid, expired or revoked.");
    }
    return { kind: "api_key", userId: lookup.user_id, orgId: lookup.org_id, role: lookup.role, keyId: lookup.key_id };
  }

  private async lookupKey(hash: string): Promise<ApiKeyLookup | null> {
    const now = this.clock.now();
    const cached = this.keyCache.get(hash);
    if (cached && cached.until > now) return cached.lookup;
    const lookup = await this.store.findApiKeyByHash(hash);
    if (this.config.apiKeyCacheSeconds > 0) {
      if (this.keyCache.size > 10_000) this.keyCache.clear();
      this.keyCache.set(hash, { lookup, until: now + this.config.apiKeyCacheSeconds * 1000 });
    }
    return lookup;
  }

  // API keys -------------------------------------------------------------------------------------

  async createApiKey(
    principal: Principal,
    input: { name: string; expires_in_days?: number | null; expires_at?: string | null },
    /** A caller-chosen key (the local stack's BOOTSTRAP_API_KEY, for automation); random otherwise. */
    chosenPlaintext?: string,
  ): Promise<ApiKeyView & { key: string }> {
    const user = await this.store.getUser(principal.userId);
    if (!user) throw unauthorized();
    const now = this.clock.now();
    const expiresAtMs = input.expires_at ? Date.parse(input.expires_at) : input.expires_in_days ? now + input.expires_in_days * 86_400_000 : null;
    if (expiresAtMs !== null && (!Number.isFinite(expiresAtMs) || expiresAtMs <= now)) {
      throw invalid(["body", input.expires_at ? "expires_at" : "expires_in_days"], "must be a time in the future");
    }
    const keyId = newId("key", now);
    if (!(await this.store.claimKeyName(user.id, { name: input.name, keyId, expiresAtMs, nowMs: now }))) {
      throw conflict(`An API key named "${input.name}" already exists.`);
    }
    let slot: number | null = null;
    try {
      slot = await this.claimSlot(user.id, { keyId, expiresAtMs, now });
    } catch (error) {
      await this.store.releaseKeyName(user.id, input.name, keyId);
      throw error;
    }
    const plaintext = chosenPlaintext ?? generateSecret("key");
    const record: ApiKeyRecord = {
      id: keyId,
      user_id: user.id,
      org_id: user.org_id,
      name: input.name,
      prefix: secretPrefix(plaintext),
      key_hash: sha256Hex(plaintext),
      slot,
      created_at: isoTime(now),
      expires_at: expiresAtMs === null ? null : isoTime(expiresAtMs),
      revoked_at: null,
    };
    await this.store.putApiKey(record, user.role);
    return { ...this.view(record), key: plaintext };
  }

  /**
   * The live-key cap: each live key holds one of `cap` slot items. Free slots (absent, or whose key
   * expired) are tried in order with a conditional put, so two racing creations never share one.
   */
  private async claimSlot(userId: string, { keyId, expiresAtMs, now }: { keyId: string; expiresAtMs: number | null; now: number }): Promise<number | null> {
    const cap = this.config.authMaxActiveApiKeysPerUser;
    if (cap <= 0) return null;
    const taken = new Map((await this.store.listKeySlots(userId)).map((s) => [s.slot, s]));
    for (let slot = 0; slot < cap; slot++) {
      const holder = taken.get(slot);
      const free = !holder || (holder.expires_at_ms > 0 && holder.expires_at_ms <= now);
      if (free && (await this.store.claimKeySlot(userId, { slot, keyId, expiresAtMs, nowMs: now }))) return slot;
    }
    throw new AppError("api_key_limit_reached", `Live API key limit reached: at most ${cap} active keys per user. Revoke one first.`, {
      limit: cap,
    });
  }

  async listApiKeys(principal: Principal): Promise<ApiKeyView[]> {
    const keys = await this.store.listApiKeys(principal.userId);
    return keys.map((k) => this.view(k)).reverse();
  }

  async revokeApiKey(principal: Principal, keyId: string): Promise<ApiKeyView> {
    const record = await this.store.getApiKey(principal.userId, keyId);
    if (!record) throw notFound("API key");
    return this.view(await this.revoke(record));
  }

  /** Revokes a key (the lookup first: authentication stops), frees its slot and name. A revoked key stays revoked. */
  private async revoke(record: ApiKeyRecord): Promise<ApiKeyRecord> {
    if (record.revoked_at) return record;
    const now = this.clock.now();
    await this.store.revokeApiKey(record, now);
    if (record.slot !== null) await this.store.releaseKeySlot(record.user_id, record.slot, record.id);
    await this.store.releaseKeyName(record.user_id, record.name, record.id);
    this.keyCache.delete(record.key_hash);
    return { ...record, revoked_at: isoTime(now) };
  }

  // Lock-out (admins and owners) ----------------------------------------------------------------

  /** A user of the caller's organization (404 for any other, or one being removed). */
  private async member(principal: Principal, userId: string): Promise<UserRecord> {
    const user = await this.store.getUser(userId);
    if (!user || user.org_id !== principal.orgId || user.removed_at) throw notFound("User");
    return user;
  }

  /** Another member's API keys, newest first (never the keys themselves). */
  async listUserKeys(principal: Principal, userId: string): Promise<ApiKeyView[]> {
    const user = await this.member(principal, userId);
    return (await this.store.listApiKeys(user.id)).map((k) => this.view(k)).reverse();
  }

  /** Revokes any key of any member of the organization: it stops authenticating at once here, within the key cache time elsewhere. */
  async revokeUserKey(principal: Principal, userId: string, keyId: string): Promise<ApiKeyView> {
    const user = await this.member(principal, userId);
    const record = await this.store.getApiKey(user.id, keyId);
    if (!record) throw notFound("API key");
    return this.view(await this.revoke(record));
  }

  /**
   * Removes a user from the organization: first their sessions end (one write: removed, token version
   * on), then every key of theirs is revoked, then their address and items go. Only an owner removes an
   * owner, and the organization keeps at least one owner. A removal cut short (the user is marked
   * removed) is finished by asking again.
   */
  async removeUser(principal: Principal, userId: string): Promise<void> {
    const user = await this.store.getUser(userId);
    if (!user || user.org_id !== principal.orgId) throw notFound("User");
    if (!user.removed_at) {
      if (user.role === "owner" && principal.role !== "owner") throw forbidden("Only an owner removes an owner.");
      if (user.role === "owner") {
        const owners = (await this.store.listUsers(principal.orgId)).filter((u) => u.role === "owner");
        if (owners.length <= 1) throw conflict("The organization's last owner cannot be removed.");
      }
      if (!(await this.store.markRemoved(user.id, this.clock.now()))) throw notFound("User");
    }
    for (const key of await this.store.listApiKeys(user.id)) await this.revoke(key);
    await this.store.deleteUser(user);
  }

  private view(k: ApiKeyRecord): ApiKeyView {
    const now = this.clock.now();
    const status = k.revoked_at ? "revoked" : k.expires_at && Date.parse(k.expires_at) <= now ? "expired" : "active";
    return { id: k.id, name: k.name, prefix: k.prefix, created_at: k.created_at, expires_at: k.expires_at, revoked_at: k.revoked_at, status };
  }

  // Password reset ----------------------------------------------------------------------------------

  /**
   * Records a reset token for a known address and hands it to the delivery sink. The caller answers
   * 202 whatever happens here, so nobody learns which addresses exist.
   */
  async requestPasswordReset(email: string, deliver: (to: string, token: string) => void | Promise<void>): Promise<void> {
    const user = await this.store.findUserByEmail(email);
    if (!user) return;
    const token = generateSecret("rst");
    await this.store.putResetToken(sha256Hex(token), user.id, this.clock.now() + this.config.passwordResetTtlSeconds * 1000);
    await deliver(user.email, token);
  }

  /** Sets the new password and ends every session of the user (their token version moves on). */
  async confirmPasswordReset(token: string, newPassword: string): Promise<void> {
    let userId: string | null;
    try {
      userId = await this.store.consumeResetToken(sha256Hex(token), this.clock.now());
    } catch (error) {
      if (!(error instanceof ResetTokenSpentError)) throw error;
      throw new AppError("bad_request", error.reason === "used" ? "Reset token already used." : "Reset token expired.");
    }
    if (!userId) throw new AppError("bad_request", "Reset token invalid.");
    await this.store.setPasswordHash(userId, await hashPassword(newPassword));
  }

  // Users ---------------------------------------------------------------------------------------------

  /** The calling user's record. */
  async user(principal: Principal): Promise<UserRecord> {
    const user = await this.store.getUser(principal.userId);
    if (!user) throw notFound("User");
    return user;
  }

  /**
   * Changes a user's organization role: their sessions end at once (token version), their API keys'
   * lookups carry the new role (other processes see it within API_KEY_CACHE_SECONDS). Only an owner
   * grants or takes the owner role, and the organization keeps at least one owner.
   */
  async changeRole(principal: Principal, userId: string, role: Role): Promise<UserRecord> {
    const user = await this.store.getUser(userId);
    if (!user || user.org_id !== principal.orgId) throw notFound("User");
    if ((role === "owner" || user.role === "owner") && principal.role !== "owner") throw forbidden("Only an owner grants or takes the owner role.");
    if (user.role === role) return user;
    if (user.role === "owner") {
      const owners = (await this.store.listUsers(principal.orgId)).filter((u) => u.role === "owner");
      if (owners.length <= 1) throw conflict("The organization's last owner keeps the owner role.");
    }
    const updated = await this.store.setRole(user.id, role);
    if (!updated) throw notFound("User");
    for (const key of await this.store.listApiKeys(user.id)) this.keyCache.delete(key.key_hash);
    return updated;
  }

  // Workspaces ----------------------------------------------------------------------------------------

  async workspaceRole(principal: Principal, workspaceId: string): Promise<Role> {
    if (principal.role === "owner" || principal.role === "admin") return principal.role;
    return effectiveWorkspaceRole(principal.role, await this.store.getMembershipRole(principal.userId, workspaceId));
  }
}
