import { z } from "zod";
import { isoTime } from "../clock.js";
import type { Config } from "../config.js";
import type { Table } from "../store/table.js";
import { SOLVERS } from "./registry.js";
import { SOLVER_NAMES, type SolverName } from "./types.js";
import { keys } from "../store/keys.js";

/**
 * Which solvers the fleet has, as a worker found them (probe at start). The API reads this record to
 * answer /solvers/available and to give `not_available` rows; until any worker has reported, the
 * configured fleet list (FLEET_SOLVERS, what the image installs) stands in, with versions unknown.
 */
export const InventoryEntrySchema = z.object({
  name: z.string(),
  available: z.boolean(),
  version: z.string().nullable(),
  detail: z.string().nullable(),
});
export type InventoryEntry = z.infer<typeof InventoryEntrySchema>;

export interface Inventory {
  solvers: InventoryEntry[];
  reported_at: string | null;
  reported_by: string | null;
}

const KEY = keys.solverInventory;

export class InventoryStore {
  private cache: { value: Inventory; until: number } | null = null;

  constructor(
    private readonly table: Table,
    private readonly config: Pick<Config, "fleetSolvers">,
    private readonly cacheMs = 15_000,
  ) {}

  async report(solvers: InventoryEntry[], reporter: string, nowMs: number): Promise<void> {
    await this.table.put({ ...KEY, solvers, reported_at: isoTime(nowMs), reported_by: reporter });
    this.cache = null;
  }

  async read(nowMs: number): Promise<Inventory> {
    if (this.cache && this.cache.until > nowMs) return this.cache.value;
    const item = await this.table.get<Inventory>(KEY.pk, KEY.sk, { consistent: false });
    const value: Inventory = item
      ? { solvers: item.solvers, reported_at: item.reported_at, reported_by: item.reported_by }
      : {
          solvers: SOLVER_NAMES.map((name) => ({
            name,
            available: this.config.fleetSolvers.includes(name),
            version: null,
            detail: "no worker has reported yet; assumed from FLEET_SOLVERS",
          })),
          reported_at: null,
          reported_by: null,
        };
    this.cache = { value, until: nowMs + this.cacheMs };
    return value;
  }

  async available(nowMs: number): Promise<Set<SolverName>> {
    const inv = await this.read(nowMs);
    return new Set(inv.solvers.filter((s) => s.available && s.name in SOLVERS).map((s) => s.name as SolverName));
  }
}
