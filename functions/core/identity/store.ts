import { epochSeconds, isoTime } from "../clock.js";
import { normalizeEmail } from "../auth/email.js";
import type { Role } from "../auth/roles.js";
import {
  and,
  assign,
  atLeast,
  atMost,
  buildUpdate,
  equals,
  greaterThan,
  increment,
  isNull,
  itemAbsent,
  itemExists,
  or,
  type Part,
} from "../store/conditions.js";
import { fromItem } from "../store/items.js";
import { keys } from "../store/keys.js";
import { ConditionFailedError, type Table } from "../store/table.js";

/**
 * Organizations, users, workspaces, API keys and password-reset tokens.
 *
 * Keys (organization, workspace, user, membership, API key, key slot and name, e-mail claim, key lookup,
 * password reset): see store/keys.ts.
 */

export interface OrganizationRecord {
  id: string;
  name: string;
  credit_balance: number;
  default_workspace_id: string;
  created_at: string;
}

export interface UserRecord {
  id: string;
  org_id: string;
  email: string;
  name: string;
  role: Role;
  password_hash: string;
  /** Moves on with every password reset, role change and removal; a session of an older version has ended. */
  token_version?: number;
  /** Set when an admin removed the user: nothing of theirs authenticates from then on (the rest is being cleared). */
  removed_at?: string;
  created_at: string;
}

export interface WorkspaceRecord {
  id: string;
  org_id: string;
  name: string;
  created_at: string;
}

export interface ApiKeyRecord {
  id: string;
  user_id: string;
  org_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  slot: number | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

/** What authenticating an API key needs, in the lookup item. */
export interface ApiKeyLookup {
  key_id: string;
  key_hash: string;
  user_id: string;
  org_id: string;
  role: Role;
  expires_at_ms: number | null;
  revoked: boolean;
}

export interface ResetTokenRecord {
  user_id: string;
  expires_at_ms: number;
  used_at: string | null;
}

/** The record a stored item holds (store/items.ts), or null for no item. */
const recordOf = <T>(item: Record<string, unknown> | null): T | null => (item ? fromItem<T>(item) : null);

/** The organization is there and its balance is at least `need` (what stays above the floor after the change). */
const creditsCover = (need: number): Part => and(itemExists(), atLeast("credit_balance", need));

/**
 * A key slot or key name is free: never claimed, or claimed by a key that has expired (an expiry of 0
 * means the key never expires; a revoked key's claim is deleted outright).
 */
const claimFree = (nowMs: number): Part => or(itemAbsent(), and(greaterThan("expires_at_ms", 0), atMost("expires_at_ms", nowMs)));

/** The slot or name is still claimed by key `keyId` (a newer key's claim is left alone). */
const claimHeldBy = (keyId: string): Part => equals("key_id", keyId);

/** The reset token is there, not yet used, and not expired at `nowMs`. */
const resetTokenUsable = (nowMs: number): Part => and(itemExists(), isNull("used_at"), greaterThan("expires_at_ms", nowMs));

/** A charge refused by the credit floor; carries the organization, whose balance says what is left. */
export class CreditFloorError extends ConditionFailedError<OrganizationRecord> {
  get balance(): number {
    return this.existing?.credit_balance ?? 0;
  }
}

/** A reset token that cannot be used again: carries the token, which says whether it was used or has expired. */
export class ResetTokenSpentError extends ConditionFailedError<ResetTokenRecord> {
  get reason(): "used" | "expired" {
    return this.existing?.used_at != null ? "used" : "expired";
  }
}

export class IdentityStore {
  constructor(private readonly table: Table) {}

  // Organizations and workspaces -------------------------------------------------------------

  async createOrganization(org: OrganizationRecord, workspaceName = "Default"): Promise<void> {
    await this.table.putNew({ ...keys.organization(org.id), ...org });
    await this.table.putNew({
      ...keys.workspace({ orgId: org.id, id: org.default_workspace_id }),
      id: org.default_workspace_id,
      org_id: org.id,
      name: workspaceName,
      created_at: org.created_at,
    });
  }

  async getOrganization(orgId: string): Promise<OrganizationRecord | null> {
    return recordOf<OrganizationRecord>(await this.table.get(keys.organization.partition(orgId), keys.organization.sk));
  }

  /**
   * Adds `delta` credits (negative to charge). With `floor`, the change is refused (CreditFloorError,
   * carrying the organization) when it would take the balance below it: one conditional ADD, no
   * read-modify-write. Null when the organization is gone.
   */
  async adjustCredits(orgId: string, delta: number, floor: number | null): Promise<number | null> {
    const out = await this.table.updateOrExplainRefusal<OrganizationRecord, CreditFloorError>(
      {
        Key: keys.organization(orgId),
        ...buildUpdate({ add: [increment("credit_balance", delta)], condition: floor === null ? itemExists() : creditsCover(floor - delta) }),
      },
      CreditFloorError,
    );
    return out?.credit_balance ?? null;
  }

  async createWorkspace(ws: WorkspaceRecord): Promise<void> {
    await this.table.putNew({ ...keys.workspace({ orgId: ws.org_id, id: ws.id }), ...ws });
  }

  async getWorkspace(orgId: string, workspaceId: string): Promise<WorkspaceRecord | null> {
    return recordOf<WorkspaceRecord>(await this.table.get(keys.workspace.partition(orgId), `${keys.workspace.prefix}${workspaceId}`));
  }

  async listWorkspaces(orgId: string): Promise<WorkspaceRecord[]> {
    return (await this.table.queryPrefix(keys.workspace.partition(orgId), keys.workspace.prefix)).map((i) => recordOf<WorkspaceRecord>(i)!);
  }

  async setMembership(userId: string, workspaceId: string, role: Role): Promise<void> {
    await this.table.put({ ...keys.membership({ userId, id: workspaceId }), workspace_id: workspaceId, role });
  }

  async getMembershipRole(userId: string, workspaceId: string): Promise<Role | null> {
    const item = await this.table.get<{ role: Role }>(keys.membership.partition(userId), `${keys.membership.prefix}${workspaceId}`);
    return item?.role ?? null;
  }

  // Users -----------------------------------------------------------------------------------

  /** Creates a user; false when the e-mail address is taken (claimed first, conditionally). */
  async createUser(user: UserRecord): Promise<boolean> {
    const email = normalizeEmail(user.email);
    const claimed = await this.table.putNew({ ...keys.emailClaim(email), user_id: user.id });
    if (!claimed) return false;
    try {
      await this.table.putNew({ ...keys.user(user.id), ...keys.user.orgIndex(user.org_id, user.id), ...user, email });
    } catch (error) {
      await this.table.delete(keys.emailClaim.partition(email), keys.emailClaim.sk);
      throw error;
    }
    return true;
  }

  async getUser(userId: string): Promise<UserRecord | null> {
    return recordOf<UserRecord>(await this.table.get(keys.user.partition(userId), keys.user.sk));
  }

  /** Whether an account holds the address (one GetItem of its claim, whoever holds it). */
  async emailTaken(email: string): Promise<boolean> {
    return (await this.table.get(keys.emailClaim.partition(normalizeEmail(email)), keys.emailClaim.sk)) !== null;
  }

  async findUserByEmail(email: string): Promise<UserRecord | null> {
    const claim = await this.table.get<{ user_id: string }>(keys.emailClaim.partition(normalizeEmail(email)), keys.emailClaim.sk);
    return claim ? this.getUser(claim.user_id) : null;
  }

  async listUsers(orgId: string): Promise<UserRecord[]> {
    const items = await this.table.queryAll({
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :pk AND begins_with(gsi1sk, :p)",
      ExpressionAttributeValues: { ":pk": keys.user.orgIndexPartition(orgId), ":p": keys.user.orgIndexPrefix },
    });
    return items.map((i) => recordOf<UserRecord>(i)!).filter((u) => !u.removed_at);
  }

  /**
   * The first step of a removal: the user is marked removed and their token version moves on, in one
   * conditional write, so every session ends at once (authentication reads the user). Null when gone.
   */
  async markRemoved(userId: string, nowMs: number): Promise<UserRecord | null> {
    const out = await this.table.update<UserRecord>({
      Key: keys.user(userId),
      ...buildUpdate({ set: [assign("removed_at", isoTime(nowMs))], add: [increment("token_version")], condition: itemExists() }),
    });
    return out ? recordOf<UserRecord>(out as unknown as Record<string, unknown>) : null;
  }

  /**
   * The last step of a removal (every key revoked before): the address's claim is given up (it may be
   * invited again), and every item of the user's partition goes — the user, memberships, key records,
   * slots, names, notifications.
   */
  async deleteUser(user: Pick<UserRecord, "id" | "email">): Promise<void> {
    await this.table.delete(keys.emailClaim.partition(normalizeEmail(user.email)), keys.emailClaim.sk, equals("user_id", user.id));
    const items = await this.table.queryAll<{ pk: string; sk: string }>({
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": keys.user.partition(user.id) },
      ProjectionExpression: "pk, sk",
      ConsistentRead: true,
    });
    // The user item last: a removal cut short is found (removed_at) and finished by the next attempt.
    await this.table.deleteMany(items.filter((i) => i.sk !== "USER"));
    await this.table.delete(keys.user.partition(user.id), keys.user.sk);
  }

  /** Sets the password and moves the token version on (every session ends). */
  async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    await this.table.update({
      Key: keys.user(userId),
      ...buildUpdate({ set: [assign("password_hash", passwordHash)], add: [increment("token_version")], condition: itemExists() }),
    });
  }

  /**
   * Sets the organization role and moves the token version on (every session ends), then copies the
   * role into the user's API key lookups, which authentication reads. Null when the user is gone.
   */
  async setRole(userId: string, role: Role): Promise<UserRecord | null> {
    const updated = await this.table.update<UserRecord>({
      Key: keys.user(userId),
      ...buildUpdate({ set: [assign("role", role)], add: [increment("token_version")], condition: itemExists() }),
    });
    if (!updated) return null;
    for (const key of await this.listApiKeys(userId)) {
      await this.table.update({
        Key: keys.apiKeyLookup(key.key_hash),
        ...buildUpdate({ set: [assign("role", role)], condition: itemExists() }),
      });
    }
    return recordOf<UserRecord>(updated as unknown as Record<string, unknown>);
  }

  // API keys --------------------------------------------------------------------------------

  async listApiKeys(userId: string): Promise<ApiKeyRecord[]> {
    return (await this.table.queryPrefix(keys.apiKey.partition(userId), keys.apiKey.prefix)).map((i) => recordOf<ApiKeyRecord>(i)!);
  }

  async getApiKey(userId: string, keyId: string): Promise<ApiKeyRecord | null> {
    return recordOf<ApiKeyRecord>(await this.table.get(keys.apiKey.partition(userId), `${keys.apiKey.prefix}${keyId}`));
  }

  /**
   * Claims slot `slot` for a new key. A slot is free when empty or when its key is revoked (the slot
   * item is deleted on revocation) or expired (`expires_at_ms` in the past). The conditional put is
   * what keeps the live-key cap exact when two creations race.
   */
  async claimKeySlot(
    userId: string,
    { slot, keyId, expiresAtMs, nowMs }: { slot: number; keyId: string; expiresAtMs: number | null; nowMs: number },
  ): Promise<boolean> {
    return this.table.put({ ...keys.keySlot({ userId, slot }), key_id: keyId, expires_at_ms: expiresAtMs ?? 0, slot }, claimFree(nowMs));
  }

  async listKeySlots(userId: string): Promise<{ slot: number; key_id: string; expires_at_ms: number }[]> {
    return this.table.queryPrefix(keys.keySlot.partition(userId), keys.keySlot.prefix);
  }

  async releaseKeySlot(userId: string, slot: number, keyId: string): Promise<void> {
    const slotKey = keys.keySlot({ userId, slot });
    await this.table.delete(slotKey.pk, slotKey.sk, claimHeldBy(keyId));
  }

  /** Claims a key name for the user; false when a live key already has it. */
  async claimKeyName(
    userId: string,
    { name, keyId, expiresAtMs, nowMs }: { name: string; keyId: string; expiresAtMs: number | null; nowMs: number },
  ): Promise<boolean> {
    return this.table.put({ ...keys.keyName({ userId, id: name }), key_id: keyId, expires_at_ms: expiresAtMs ?? 0 }, claimFree(nowMs));
  }

  async releaseKeyName(userId: string, name: string, keyId: string): Promise<void> {
    await this.table.delete(keys.keyName.partition(userId), `${keys.keyName.prefix}${name}`, claimHeldBy(keyId));
  }

  async putApiKey(record: ApiKeyRecord, role: Role): Promise<void> {
    const expiresMs = record.expires_at ? Date.parse(record.expires_at) : null;
    const lookup: ApiKeyLookup = {
      key_id: record.id,
      key_hash: record.key_hash,
      user_id: record.user_id,
      org_id: record.org_id,
      role,
      expires_at_ms: expiresMs,
      revoked: false,
    };
    await this.table.putNew({ ...keys.apiKey({ userId: record.user_id, id: record.id }), ...record });
    await this.table.putNew({
      ...keys.apiKeyLookup(record.key_hash),
      ...lookup,
      // Expired lookups disappear a week after expiry; until then readers check expires_at_ms.
      ...(expiresMs ? { ttl: epochSeconds(expiresMs) + 7 * 86400 } : {}),
    });
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyLookup | null> {
    return recordOf<ApiKeyLookup>(await this.table.get(keys.apiKeyLookup.partition(hash), keys.apiKeyLookup.sk, { consistent: false }));
  }

  /** Marks a key revoked: the lookup first (authentication stops), then the record. */
  async revokeApiKey(record: ApiKeyRecord, nowMs: number): Promise<void> {
    await this.table.update({
      Key: keys.apiKeyLookup(record.key_hash),
      ...buildUpdate({ set: [assign("revoked", true)], condition: itemExists() }),
    });
    await this.table.update({
      Key: keys.apiKey({ userId: record.user_id, id: record.id }),
      // Not if_not_exists: a live key holds revoked_at null, which counts as existing. The service revokes
      // only a key not yet revoked.
      ...buildUpdate({ set: [assign("revoked_at", isoTime(nowMs))] }),
    });
  }

  // Password reset --------------------------------------------------------------------------

  async putResetToken(tokenHash: string, userId: string, expiresAtMs: number): Promise<void> {
    await this.table.putNew({
      ...keys.passwordReset(tokenHash),
      user_id: userId,
      expires_at_ms: expiresAtMs,
      used_at: null,
      ttl: epochSeconds(expiresAtMs) + 86400,
    });
  }

  /**
   * Marks the token used if it is unused and unexpired; returns its user. Throws ResetTokenSpentError,
   * carrying the token, when it was used or has expired; null when there is no such token.
   */
  async consumeResetToken(tokenHash: string, nowMs: number): Promise<string | null> {
    const out = await this.table.updateOrExplainRefusal<ResetTokenRecord, ResetTokenSpentError>(
      {
        Key: keys.passwordReset(tokenHash),
        ...buildUpdate({ set: [assign("used_at", isoTime(nowMs))], condition: resetTokenUsable(nowMs) }),
      },
      ResetTokenSpentError,
    );
    return out?.user_id ?? null;
  }
}
