import { roleAtLeast } from "../auth/roles.js";
import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import { AppError, notFound } from "../errors.js";
import type { Notifications } from "../notifications/notifications.js";
import type { ProblemStats } from "../problem/schema.js";
import { CreditFloorError, type IdentityStore } from "../identity/store.js";
import { creditQuote, creditsToEur } from "./formula.js";
import type { CreditInput, CreditQuote } from "./schemas.js";
import type { CreditLedger, LedgerEntry } from "./ledger.js";

export interface CreditBalance {
  organization_id: string;
  credits_remaining: number;
  credit_price_eur: number;
  balance_eur: number;
}

export interface CreditGrant {
  organization_id: string;
  credits_granted: number;
  credits_remaining: number;
}

const insufficientCredits = (required: number, remaining: number) =>
  new AppError("insufficient_credits", `This request costs ${required} credits; the organization has ${remaining}.`, {
    credits_required: required,
    credits_remaining: remaining,
  });

export interface CreditHistory {
  organization_id: string;
  entries: LedgerEntry[];
  /** Pass as `before` for the next (older) page; null on the last. */
  next_before: string | null;
}

/**
 * An organization's credits, in one place: the spec's formula (per solve and the public quote), the
 * charge (one conditional ADD on the balance, refused below zero), the refund, the balance and its
 * history (every movement, in the ledger), the instance operator's grant, and the notices
 * (`credits_low` when a charge crosses CREDITS_LOW_THRESHOLD, `credits_purchased` to every admin and
 * owner on a grant). No organization member can add credits: a grant is the operator's act.
 */
export class Credits {
  constructor(
    private readonly deps: {
      identity: Pick<IdentityStore, "adjustCredits" | "getOrganization" | "listUsers">;
      notifications: Pick<Notifications, "notify">;
      config: Pick<Config, "maxCreditsPerSolve" | "creditPriceEur" | "creditsLowThreshold">;
      ledger: Pick<CreditLedger, "record" | "page">;
      clock: Clock;
    },
  ) {}

  /** The calculator's answer: the formula's credits, how they were made, and their price. */
  quote(input: CreditInput): CreditQuote & { cost_eur: number } {
    const quote = creditQuote(input, this.deps.config.maxCreditsPerSolve);
    return { ...quote, cost_eur: creditsToEur(quote.credits_required, this.deps.config.creditPriceEur) };
  }

  /** What one solve of a problem of these stats costs at this time limit. */
  perSolve(stats: ProblemStats, timeLimitSeconds: number): number {
    return creditQuote(
      {
        num_variables: stats.variable_count,
        num_integer_vars: stats.integer_count,
        num_binary_vars: stats.binary_count,
        num_constraints: stats.constraint_count,
        time_limit_seconds: timeLimitSeconds,
      },
      this.deps.config.maxCreditsPerSolve,
    ).credits_required;
  }

  /** Takes `amount` credits; 403 insufficient_credits (nothing taken) when the balance does not cover it. Returns the new balance. */
  async charge(orgId: string, amount: number): Promise<number> {
    let balance: number | null;
    try {
      balance = await this.deps.identity.adjustCredits(orgId, -amount, 0);
    } catch (error) {
      if (!(error instanceof CreditFloorError)) throw error;
      throw insufficientCredits(amount, error.balance);
    }
    // No such organization: nothing to charge from.
    if (balance === null) throw insufficientCredits(amount, 0);
    await this.deps.ledger.record(orgId, { kind: "charge", credits: -amount, balance_after: balance, note: null }, this.deps.clock.now());
    return balance;
  }

  /** Puts back credits taken for solves that will not run. */
  async refund(orgId: string, amount: number): Promise<void> {
    const balance = await this.deps.identity.adjustCredits(orgId, amount, null);
    if (balance !== null) await this.deps.ledger.record(orgId, { kind: "refund", credits: amount, balance_after: balance, note: null }, this.deps.clock.now());
  }

  /** `credits_low` to the user charged, when this charge took the balance below the threshold. */
  async noticeLowBalance(userId: string, balance: number, charged: number): Promise<void> {
    const threshold = this.deps.config.creditsLowThreshold;
    if (threshold <= 0 || balance >= threshold || balance + charged < threshold) return;
    await this.deps.notifications.notify(userId, {
      type: "credits_low",
      title: "Credits running low",
      message: `Your organization has ${balance} credits left (below ${threshold}).`,
      data: { credits_remaining: balance, threshold },
      link: "/credits",
    });
  }

  async balance(orgId: string): Promise<CreditBalance> {
    const org = await this.deps.identity.getOrganization(orgId);
    if (!org) throw notFound("Organization");
    const price = this.deps.config.creditPriceEur;
    return { organization_id: org.id, credits_remaining: org.credit_balance, credit_price_eur: price, balance_eur: creditsToEur(org.credit_balance, price) };
  }

  /** The balance's movements, newest first. */
  async history(orgId: string, limit: number, before: string | undefined): Promise<CreditHistory> {
    const { entries, next } = await this.deps.ledger.page(orgId, limit, before);
    return { organization_id: orgId, entries, next_before: next };
  }

  /**
   * The instance operator's grant to an organization (a purchase recorded by hand until payments exist;
   * the caller has proved the operator credential): one conditional ADD, a ledger entry, then
   * `credits_purchased` to every admin and owner of the organization.
   */
  async operatorGrant(orgId: string, credits: number, note: string | undefined): Promise<CreditGrant> {
    const balance = await this.deps.identity.adjustCredits(orgId, credits, null);
    if (balance === null) throw notFound("Organization");
    await this.deps.ledger.record(orgId, { kind: "operator_grant", credits, balance_after: balance, note: note ?? null }, this.deps.clock.now());
    const admins = (await this.deps.identity.listUsers(orgId)).filter((u) => roleAtLeast(u.role, "admin"));
    for (const user of admins) {
      await this.deps.notifications.notify(user.id, {
        type: "credits_purchased",
        title: `${credits} credits added`,
        message: `${credits} credits were added to your organization${note ? ` (${note})` : ""}; it now has ${balance}.`,
        data: { credits_granted: credits, credits_remaining: balance, granted_by: "operator" },
        link: "/credits",
      });
    }
    return { organization_id: orgId, credits_granted: credits, credits_remaining: balance };
  }
}
