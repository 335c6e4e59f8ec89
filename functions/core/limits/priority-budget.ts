import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import type { CounterStore, WindowSpec } from "./counters.js";
import { keys } from "../store/keys.js";

/**
 * The budget of priority above 0: each organization may queue ORG_PRIORITY_SOLVES_PER_DAY solves in the
 * high band per UTC day (0 = no ceiling). Without it an owner or admin could put every job in the high
 * band, and the high band would be the normal one — ahead of every other tenant. Counted in solves, as
 * the daily quota is (a comparison of five solvers at priority 50 is five), by one conditional ADD.
 */
export class PriorityBudget {
  constructor(
    private readonly counters: Pick<CounterStore, "consume">,
    private readonly config: Pick<Config, "orgPrioritySolvesPerDay">,
  ) {}

  private windows(limit: number): WindowSpec[] {
    return [{ name: "priority-day", seconds: 86_400, limit }];
  }

  /**
   * Spends `solves` of the organization's budget for work queued at `priority`; 403
   * `priority_budget_exceeded` (nothing spent) when the day's budget does not cover them. Returns what
   * was spent (0 at priority 0 or below, or with no ceiling), for `giveBack` when the request fails later.
   */
  async spend(orgId: string, { priority, solves, nowMs }: { priority: number | undefined; solves: number; nowMs: number }): Promise<number> {
    const limit = this.config.orgPrioritySolvesPerDay;
    if (priority === undefined || priority <= 0 || solves <= 0 || limit <= 0) return 0;
    const result = await this.counters.consume(keys.limit.scope.priority(orgId), { windows: this.windows(limit), nowMs, amount: solves });
    if (!result.allowed) {
      const used = result.windows[0]!.count;
      throw new AppError(
        "priority_budget_exceeded",
        `Priority above 0 is limited to ${limit} solves per organization per day; ${used} are used today and this request needs ${solves}. Send it at priority 0 (or below), or tomorrow.`,
        { needed: solves, limit, used_today: used },
      );
    }
    return solves;
  }

  /** Whether one more solve may go in the high band today (a trigger run, which is queued at 0 otherwise); counts it when so. */
  async tryTake(orgId: string, nowMs: number): Promise<boolean> {
    const limit = this.config.orgPrioritySolvesPerDay;
    if (limit <= 0) return true;
    return (await this.counters.consume(keys.limit.scope.priority(orgId), { windows: this.windows(limit), nowMs, amount: 1 })).allowed;
  }

  /** Puts back what `spend` took, for a request refused after it (credits, quota). */
  async giveBack(orgId: string, solves: number, nowMs: number): Promise<void> {
    if (solves <= 0) return;
    await this.counters.consume(keys.limit.scope.priority(orgId), { windows: this.windows(0), nowMs, amount: -solves });
  }
}
