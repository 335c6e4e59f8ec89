import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";

/** One colour per solver, in the order the comparison names them; distinguishable without red/green. */
export const PALETTE = ["#1f77b4", "#d95f02", "#7570b3", "#1b9e77", "#e7298a", "#66a61e", "#a6761d", "#525252"];

export interface SolverTrace {
  solver: string;
  /** seconds since the solver started, its incumbent and its bound then */
  points: { t: number; primal: number | null; dual: number | null }[];
}

/** Creates the plot on a div and recreates it when the data change (few points; simplest correct). */
function usePlot(build: (el: HTMLDivElement) => uPlot | null, deps: unknown[]) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const plot = ref.current ? build(ref.current) : null;
    return () => plot?.destroy();
  }, deps);
  return ref;
}

/** Tick labels with as many decimals as the tick step needs (uPlot's default rounds 0.0004 to 0). */
const ticks = (_u: uPlot, splits: number[]) => {
  const step = splits.length > 1 ? Math.abs(splits[1]! - splits[0]!) : 1;
  const decimals = step > 0 ? Math.min(12, Math.max(0, 1 - Math.floor(Math.log10(step)))) : 0;
  return splits.map((v) => v.toFixed(decimals));
};

/** Solvers report "no bound yet" as ±1e20 or ±1e30 and the like: such values are left out of the plot. */
const plottable = (v: number | null): number | null => (v !== null && Number.isFinite(v) && Math.abs(v) < 1e19 ? v : null);

/**
 * The objective axis: solvers that agree differ in the 13th digit, and a range that narrow is below
 * what the axis can divide, so the span is at least a millionth of the values' size.
 */
const padded = (min: number, max: number): uPlot.Range.MinMax => {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  const span = Math.max(max - min, Math.abs(max) * 1e-6, Math.abs(min) * 1e-6, 1e-6);
  const middle = (min + max) / 2;
  return [middle - span * 0.55, middle + span * 0.55];
};

export function TimesChart({ solvers, times }: { solvers: string[]; times: (number | null)[] }) {
  const drawn = times.filter((t) => t !== null).length;
  const ref = usePlot(
    (el) => {
      if (drawn === 0) return null;
      const xs = solvers.map((_, i) => i);
      const max = Math.max(...times.map((t) => t ?? 0), 1);
      return new uPlot(
        {
          width: 440,
          height: 240,
          legend: { show: false },
          cursor: { show: false },
          scales: { x: { time: false, range: [-0.5, solvers.length - 0.5] }, y: { range: [0, max * 1.1] } },
          axes: [
            { splits: () => xs, values: (_u, splits) => splits.map((i) => solvers[i] ?? "") },
            { label: "wall time (ms)", size: 60 },
          ],
          series: [
            {},
            {
              label: "wall time (ms)",
              fill: "#1f77b4aa",
              stroke: "#1f77b4",
              paths: uPlot.paths.bars!({ size: [0.6, 80] }),
              points: { show: false },
            },
          ],
        },
        [xs, times],
        el,
      );
    },
    [solvers.join(), times.join()],
  );
  return (
    <figure>
      <div
        ref={ref}
        class="chart"
        role="img"
        aria-label={`Bar chart of wall time in milliseconds for ${drawn} of ${solvers.length} solvers`}
        data-chart="times"
        data-bars={drawn}
      />
      <figcaption>Wall time of each solver (ms, this comparison only)</figcaption>
    </figure>
  );
}

export function ProgressChart({ traces }: { traces: SolverTrace[] }) {
  const withPoints = traces.filter((tr) => tr.points.length > 0);
  const pointCount = withPoints.reduce((n, tr) => n + tr.points.length, 0);
  const ref = usePlot(
    (el) => {
      if (withPoints.length === 0) return null;
      const tables: uPlot.AlignedData[] = withPoints.map((tr) => {
        const sorted = [...tr.points].sort((a, b) => a.t - b.t);
        return [sorted.map((p) => p.t), sorted.map((p) => plottable(p.primal)), sorted.map((p) => plottable(p.dual))];
      });
      const data = uPlot.join(tables);
      const series: uPlot.Series[] = [{}];
      for (const tr of withPoints) {
        const colour = PALETTE[traces.indexOf(tr) % PALETTE.length];
        series.push({ label: `${tr.solver} incumbent`, stroke: colour, width: 2, spanGaps: true, points: { show: true, size: 6 } });
        series.push({ label: `${tr.solver} bound`, stroke: colour, width: 1, dash: [6, 4], spanGaps: true, points: { show: true, size: 4 } });
      }
      return new uPlot(
        {
          width: 440,
          height: 240,
          legend: { show: false },
          scales: {
            x: { time: false, range: (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1] },
            y: { range: (_u, min, max) => padded(min, max) },
          },
          axes: [
            { label: "seconds since the solver started", values: ticks },
            { label: "objective", size: 90, values: ticks },
          ],
          series,
        },
        data,
        el,
      );
    },
    [JSON.stringify(withPoints)],
  );
  return (
    <figure>
      <div
        ref={ref}
        class="chart"
        role="img"
        aria-label={`Line chart of incumbent (solid) and bound (dashed) over time: ${pointCount} points from ${withPoints.length} solvers`}
        data-chart="progress"
        data-points={pointCount}
      />
      <figcaption>
        Incumbent (solid) and bound (dashed) over time, live from the progress stream:{" "}
        {traces.map((tr, i) => (
          <span key={tr.solver} class="key">
            <span class="swatch" style={{ background: PALETTE[i % PALETTE.length] }} aria-hidden="true" /> {tr.solver}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
