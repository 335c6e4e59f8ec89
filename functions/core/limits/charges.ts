import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import { creditQuote } from "../credits/formula.js";
import { AppError } from "../errors.js";
import type { Notifications } from "../notifications/notifications.js";
import type { ProblemStats } from "../problem/schema.js";
import type { IdentityStore } from "../store/identity.js";
import type { DailyQuota } from "./quota.js";

/**
 * What a batch of solves costs an organization: credits by the spec's formula (one conditional ADD on
 * the balance; refused with 403 when it would go below zero) and one daily-quota slot each. Credits
 * are taken first; if the quota then refuses, the credits go back (a quota refusal stays spent, as the
 * spec says, but nobody pays credits for solves that will not run).
 */
export class SolveCharges {
  constructor(
    private readonly identity: IdentityStore,
    private readonly quota: DailyQuota,
    private readonly notifications: Notifications,
    private readonly config: Config,
    private readonly clock: Clock,
  ) {}

  creditsFor(stats: ProblemStats, timeLimitSeconds: number): number {
    return creditQuote(
      {
        num_variables: stats.variable_count,
        num_integer_vars: stats.integer_count,
        num_binary_vars: stats.binary_count,
        num_constraints: stats.constraint_count,
        time_limit_seconds: timeLimitSeconds,
      },
      this.config.maxCreditsPerSolve,
    ).credits_required;
  }

  /** Charges `solves` solves of `creditsEach`; returns the new balance. */
  async charge(orgId: string, userId: string, solves: number, creditsEach: number): Promise<number> {
    if (solves === 0) return NaN;
    const total = solves * creditsEach;
    const balance = await this.identity.adjustCredits(orgId, -total, 0);
    if (balance === null) {
      const org = await this.identity.getOrganization(orgId);
      throw new AppError("insufficient_credits", `This request costs ${total} credits; the organization has ${org?.credit_balance ?? 0}.`, {
        credits_required: total,
        credits_remaining: org?.credit_balance ?? 0,
      });
    }
    try {
      await this.quota.charge(orgId, solves, this.clock.now());
    } catch (error) {
      await this.identity.adjustCredits(orgId, total, null);
      throw error;
    }
    const threshold = this.config.creditsLowThreshold;
    if (threshold > 0 && balance < threshold && balance + total >= threshold) {
      await this.notifications.notify(userId, {
        type: "credits_low",
        title: "Credits running low",
        message: `Your organization has ${balance} credits left (below ${threshold}).`,
        data: { credits_remaining: balance, threshold },
        link: "/credits",
      });
    }
    return balance;
  }
}
