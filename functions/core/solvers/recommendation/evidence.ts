import { keys } from "../../store/keys.js";
import type { Table } from "../../store/table.js";
import { type ComparisonEvidence, type Observation, observationOfComparison } from "./observations.js";

/** How many of an organization's finished comparisons (matrix rows included) the recommender reads, newest first. */
export const HISTORY_LIMIT = 200;
/** How many comparisons it looks through at most to find them (running and cancelled ones are skipped). */
const HISTORY_SCAN_LIMIT = 400;
/** How long one organization's history is kept in this process before it is read again. */
export const HISTORY_TTL_MS = 60_000;

/** The port the recommender reads an organization's history through. */
export interface ComparisonHistory {
  /** The newest finished comparisons of `orgId` (at most `limit`), with what the recommender needs of each. */
  recentFinished(orgId: string, limit: number): Promise<ComparisonEvidence[]>;
}

const FINISHED = new Set(["completed", "failed", "cancelled"]);

/**
 * The history in the table: one query of the organization's comparison partition, newest first, reading
 * only the fields an observation needs (not the problem, not the model). Matrix rows are comparisons
 * with a batch id, so they are in it.
 */
export class TableComparisonHistory implements ComparisonHistory {
  constructor(private readonly table: Table) {}

  async recentFinished(orgId: string, limit: number): Promise<ComparisonEvidence[]> {
    const found: ComparisonEvidence[] = [];
    let scanned = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.table.queryPage<ComparisonEvidence & { status: string }>({
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :p)",
        ExpressionAttributeValues: { ":pk": keys.comparison.partition(orgId), ":p": keys.comparison.prefix },
        ExpressionAttributeNames: { "#status": "status", "#settings": "settings", "#results": "results" },
        ProjectionExpression:
          "id, #status, problem_class, variable_count, constraint_count, nonzero_count, integer_variable_count, structure_counts, numerics, #settings, #results, agreement",
        ScanIndexForward: false,
        Limit: 100,
        ExclusiveStartKey: start,
      });
      for (const item of page.items) {
        scanned++;
        if (FINISHED.has(item.status) && found.length < limit) found.push(item);
      }
      start = found.length < limit && scanned < HISTORY_SCAN_LIMIT ? page.next : undefined;
    } while (start);
    return found;
  }
}

/**
 * An organization's observations, read through `history` and kept HISTORY_TTL_MS per organization: every
 * `auto` solve asks, and a minute-old history chooses as well (the same history, the same choice).
 */
export class OrganizationObservations {
  private readonly cache = new Map<string, { atMs: number; observations: Observation[] }>();

  constructor(
    private readonly history: ComparisonHistory,
    private readonly now: () => number,
  ) {}

  async of(orgId: string): Promise<Observation[]> {
    const kept = this.cache.get(orgId);
    if (kept && this.now() - kept.atMs < HISTORY_TTL_MS) return kept.observations;
    const comparisons = await this.history.recentFinished(orgId, HISTORY_LIMIT);
    const observations = comparisons.map(observationOfComparison).filter((o): o is Observation => o !== null);
    // A bounded cache: organizations not seen for a while are dropped first.
    this.cache.delete(orgId);
    if (this.cache.size >= 1000) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(orgId, { atMs: this.now(), observations });
    return observations;
  }
}
