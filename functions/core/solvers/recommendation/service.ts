import type { InventoryStore } from "../inventory.js";
import type { Clock } from "../../clock.js";
import type { OrganizationObservations } from "./evidence.js";
import { featuresOf, type ProblemSizes } from "./features.js";
import type { Observation } from "./observations.js";
import { type Recommendation, recommend } from "./recommender.js";
import type { Numerics } from "../../problem/numerics.js";

/**
 * What `auto` and GET /api/v2/solvers/recommendation ask: the recommendation for a problem of an
 * organization, from its history, the shipped public table and the solvers available now.
 */
export class SolverRecommendations {
  constructor(
    private readonly deps: {
      clock: Clock;
      inventory: Pick<InventoryStore, "available">;
      organization: Pick<OrganizationObservations, "of">;
      publicObservations: readonly Observation[];
    },
  ) {}

  /** Null when no available solver can run the class. `available`: the solvers available, when the caller has read them. */
  async recommend(
    orgId: string,
    sizes: ProblemSizes,
    options: { numerics?: Numerics | null; available?: ReadonlySet<string> } = {},
  ): Promise<Recommendation | null> {
    const { numerics, available: known } = options;
    const [available, organization] = await Promise.all([known ?? this.deps.inventory.available(this.deps.clock.now()), this.deps.organization.of(orgId)]);
    return recommend({ features: featuresOf(sizes, numerics), available, organization, public: this.deps.publicObservations });
  }
}
