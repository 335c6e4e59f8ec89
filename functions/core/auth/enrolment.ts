import type { Services } from "../services.js";
import { epochSeconds, isoTime } from "../clock.js";
import { AppError, conflict, forbidden, invalid } from "../errors.js";
import type { UserRecord } from "../identity/store.js";
import { and, assign, buildUpdate, equals, greaterThan, isNull, itemExists } from "../store/conditions.js";
import { isEmailAddress, normalizeEmail } from "./email.js";
import type { Role } from "./roles.js";
import { generateSecret, hashPassword, sha256Hex } from "./secrets.js";
import type { AuthService, Principal } from "./service.js";
import { keys } from "../store/keys.js";

/**
 * How addresses come in without telling anyone whether they are taken (issue 25): sign-up and an
 * admin's invitation answer 202 whatever the address, and do the same work either way — the password
 * hashed (sign-up), one read of the address's claim, one pending item written, one mail sent. Only the
 * mail differs: to a free address, a token to confirm the sign-up or accept the invitation; to a taken
 * one, a notice that its account exists (sign in, or reset the password). Whoever reads that mailbox
 * owns the address; nobody else learns a thing. The account is made when the token comes back.
 *
 * Pending items, keyed by the token's SHA-256 (store/keys.ts): usable once, expiring (table TTL too).
 */
export interface PendingEnrolment {
  kind: "signup" | "invitation";
  email: string;
  name: string | null;
  /** Sign-up: the organization to make and its owner's password hash (hashed when asked, never stored in clear). */
  organization_name?: string;
  password_hash?: string;
  /** Invitation: where and as what. */
  org_id?: string;
  role?: Role;
  invited_by?: string;
  /** The address had an account when asked: the token was never sent, and accepting it makes nothing. */
  address_taken: boolean;
  expires_at_ms: number;
  used_at: string | null;
}

const pendingKey = (token: string) => keys.enrolment(sha256Hex(token));

export class Enrolment {
  constructor(private readonly deps: Pick<Services, "identity" | "table" | "config" | "clock" | "mailbox"> & { auth: AuthService }) {}

  private get ttlMs(): number {
    return this.deps.config.enrolmentTtlSeconds * 1000;
  }

  /** Sign-up: 202 for any address; the organization and its owner are made by `confirmSignup`. */
  async requestSignup(input: { organizationName: string; email: string; password: string; name?: string }): Promise<void> {
    const email = this.address(input.email);
    const passwordHash = await hashPassword(input.password);
    const taken = await this.deps.identity.emailTaken(email);
    const token = await this.putPending({
      kind: "signup",
      email,
      name: input.name ?? null,
      organization_name: input.organizationName,
      password_hash: passwordHash,
      address_taken: taken,
    });
    await this.mail(
      email,
      taken
        ? {
            subject: "Incumbent sign-up",
            body: "Someone asked to sign up with this address, which already has an Incumbent account. If it was you, sign in, or ask for a password reset (POST /api/v2/auth/password-reset). Nothing was created.",
          }
        : {
            subject: "Confirm your Incumbent sign-up",
            body: `Confirm the sign-up of "${input.organizationName}" with POST /api/v2/auth/signup/confirm and this token: ${token}`,
          },
    );
  }

  /** Makes the organization and its owner from a sign-up's token (usable once). */
  async confirmSignup(token: string): Promise<UserRecord> {
    const pending = await this.consume(token, "signup");
    if (pending.address_taken) throw conflict("This address already has an account; sign in or reset its password.");
    const { user } = await this.deps.auth.createOrganizationWithOwner({
      orgName: pending.organization_name!,
      email: pending.email,
      passwordHash: pending.password_hash!,
      name: pending.name ?? undefined,
    });
    return user;
  }

  /** An admin's invitation: 202 for any address; the user is made by `acceptInvitation`, with their own password. */
  async invite(principal: Principal, input: { email: string; role: Role; name?: string }): Promise<void> {
    if (input.role === "owner" && principal.role !== "owner") throw forbidden("Only an owner makes another owner.");
    const email = this.address(input.email);
    const org = await this.deps.identity.getOrganization(principal.orgId);
    const taken = await this.deps.identity.emailTaken(email);
    const token = await this.putPending({
      kind: "invitation",
      email,
      name: input.name ?? null,
      org_id: principal.orgId,
      role: input.role,
      invited_by: principal.userId,
      address_taken: taken,
    });
    const where = org?.name ? `"${org.name}"` : "an organization";
    await this.mail(
      email,
      taken
        ? {
            subject: "Incumbent invitation",
            body: `You were invited to ${where} on Incumbent, but this address already has an account, and an address belongs to one account. Ask whoever invited you to use another address. Nothing was created.`,
          }
        : {
            subject: "Your Incumbent invitation",
            body: `You were invited to ${where} on Incumbent. Accept with POST /api/v2/auth/invitations/accept, this token and a password of your choice: ${token}`,
          },
    );
  }

  /** Makes the invited user, with the password they choose, from an invitation's token (usable once). */
  async acceptInvitation(token: string, password: string, name: string | undefined): Promise<UserRecord> {
    const pending = await this.consume(token, "invitation");
    if (pending.address_taken) throw conflict("This address already has an account; an address belongs to one account.");
    if (!(await this.deps.identity.getOrganization(pending.org_id!))) throw new AppError("bad_request", "The organization that sent this invitation is gone.");
    return this.deps.auth.createUser(pending.org_id!, { email: pending.email, password, name: name ?? pending.name ?? undefined, role: pending.role! });
  }

  private address(raw: string): string {
    if (!isEmailAddress(raw)) throw invalid(["body", "email"], "must be an e-mail address (name@domain.tld)");
    return normalizeEmail(raw);
  }

  private async putPending(entry: Omit<PendingEnrolment, "expires_at_ms" | "used_at">): Promise<string> {
    const token = generateSecret(entry.kind === "signup" ? "sgn" : "inv");
    const expires = this.deps.clock.now() + this.ttlMs;
    const pending: PendingEnrolment = { ...entry, expires_at_ms: expires, used_at: null };
    await this.deps.table.put({ ...pendingKey(token), ...pending, ttl: epochSeconds(expires) + 86_400 });
    return token;
  }

  /** Marks the token used if it is unused, unexpired and of this kind; 400 otherwise (as a reset token). */
  private async consume(token: string, kind: PendingEnrolment["kind"]): Promise<PendingEnrolment> {
    const now = this.deps.clock.now();
    const out = await this.deps.table.update<PendingEnrolment>({
      Key: pendingKey(token),
      ...buildUpdate({
        set: [assign("used_at", isoTime(now))],
        condition: and(itemExists(), equals("kind", kind), isNull("used_at"), greaterThan("expires_at_ms", now)),
      }),
    });
    if (!out) throw new AppError("bad_request", "Token invalid, expired or already used.");
    return out;
  }

  private async mail(to: string, message: { subject: string; body: string }): Promise<void> {
    try {
      await this.deps.mailbox(to, message.subject, message.body);
    } catch {
      // The answer is 202 whatever the transport does: a failure must not tell addresses apart either.
    }
  }
}
