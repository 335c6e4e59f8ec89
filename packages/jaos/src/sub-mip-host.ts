/**
 * The root sub-MIPs' view of a search (sub-mip.ts, mip.ts): each sub-MIP is the root's model (cuts in)
 * within the neighbourhood's bounds, presolved and probed into a MILP of its own (most of its columns are
 * fixed: far smaller than the root's model), searched by branch and bound from its own root LP and cut
 * loop, seeded with the incumbent so that it only looks for better points. Its points are postsolved
 * through its presolve and the search's and verified on the original model; a better one is taken over by
 * the search, with its point in the search's columns (the next RINS neighbourhood, the root's reduced-cost
 * fixing). A neighbourhood presolve finds empty proves nothing for the search (it holds the root's other
 * points) and ends that sub-MIP without a point.
 */
import type { Incumbent } from "./incumbent.js";
import type { ChildSearch, MipOptions, SpawnSearch } from "./mip-types.js";
import type { LpModel } from "./model.js";
import { presolve } from "./presolve.js";
import { probeRoot } from "./probing.js";
import { chainPostsolve, type ColumnPostsolve, withColumnBounds } from "./root-restart.js";
import { type SubMipHost, subMipOptions } from "./sub-mip.js";

/** What a search lends its root sub-MIPs (mip.ts builds it at the first root). */
export interface SubMipSearch {
  /** The root's model (its kept cuts in) and the root's box. */
  readonly model: LpModel;
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  readonly opt: MipOptions;
  /** The search's postsolve onto the original model. */
  readonly post: ColumnPostsolve;
  /** The search's incumbent, and its point in the search's columns (null before the first). */
  readonly best: Incumbent;
  incumbent(): Float64Array | null;
  /** (incumbent − the root's proven bound) / max(1, |incumbent|); Infinity without an incumbent. */
  rootGap(): number;
  readonly spawn: SpawnSearch;
  /** Takes over a sub-MIP's better incumbent, its point `xr` in the search's columns. */
  takeOver(sub: ChildSearch, xr: Float64Array): void;
}

export function subMipHost(search: SubMipSearch): SubMipHost {
  return {
    integer: search.model.integer,
    lower: search.lower,
    upper: search.upper,
    deadline: search.opt.deadline,
    rootGap: () => search.rootGap(),
    incumbent: () => search.incumbent(),
    search: (colLower, colUpper, limit) => {
      const pre = presolve(withColumnBounds(search.model, colLower, colUpper));
      if (pre.status !== "reduced") return { improved: false, nodes: 0, iterations: 0 };
      const opt = subMipOptions(search.opt, { ...limit, fresh: true });
      const probed = opt.probing === false ? null : probeRoot(pre, opt);
      const searched = probed?.searched ?? { model: pre.reduced, post: pre };
      const sub = search.spawn(chainPostsolve(search.post, searched.post), searched.model, opt);
      // its nodes and iterations are counted in stats.subMip and added to the outcome's totals only: the
      // dives' and strong branching's shares of the search's iterations stay as they were
      const out = sub.run();
      const improved = sub.best.value < search.best.value && sub.incumbentReduced !== null;
      if (improved) search.takeOver(sub, searched.post.postsolve(sub.incumbentReduced!));
      return { improved, nodes: out.nodes, iterations: out.iterations };
    },
  };
}
