import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import type { CounterStore } from "./counters.js";
import { keys } from "../store/keys.js";

/**
 * The daily solve quota (instance_max_daily_solves; 0 = none). Solves are charged one at a time: a
 * request that cannot afford all of them is refused whole with 403, and the slots counted before the
 * refusal stay spent (the spec: nothing is refunded).
 */
export class DailyQuota {
  constructor(
    private readonly counters: CounterStore,
    private readonly config: Pick<Config, "instanceMaxDailySolves">,
  ) {}

  async charge(orgId: string, solves: number, nowMs: number): Promise<void> {
    const limit = this.config.instanceMaxDailySolves;
    const windows = [{ name: "solves-day", seconds: 86_400, limit }];
    for (let i = 0; i < solves; i++) {
      const result = await this.counters.consume(keys.limit.scope.quota(orgId), { windows, nowMs });
      if (!result.allowed) {
        throw new AppError(
          "daily_solve_quota_exceeded",
          `Daily solve quota exceeded: this request needs ${solves} solve(s); ${i} were counted before the limit of ${limit} was reached and stay spent.`,
          { needed: solves, spent: i, limit, used_today: result.windows[0]!.count },
        );
      }
    }
  }

  usedToday(orgId: string, nowMs: number): Promise<number> {
    return this.counters.dailyCount(keys.limit.scope.quota(orgId), "solves-day", nowMs);
  }
}
