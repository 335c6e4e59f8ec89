/** Small statistics helpers shared by the benchmarks. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export const median = (values: number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** Shifted geometric mean (the usual solver-benchmark average): exp(mean(log(t + s))) − s. */
export function shiftedGeomean(times: number[], shift = 1): number {
  if (times.length === 0) return NaN;
  return Math.exp(times.reduce((acc, t) => acc + Math.log(t + shift), 0) / times.length) - shift;
}

export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (typeof c === "number" ? fmt(c) : c)))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? "").length)));
  return cells
    .map((r, n) => r.map((c, i) => String(c ?? "").padEnd(widths[i]!)).join("  ") + (n === 0 ? `\n${widths.map((w) => "-".repeat(w)).join("  ")}` : ""))
    .join("\n");
}

export function fmt(x: number): string {
  if (!Number.isFinite(x) || Number.isInteger(x)) return String(x);
  if (Math.abs(x) >= 100) return x.toFixed(0);
  if (Math.abs(x) >= 1) return x.toFixed(2);
  return x.toFixed(3);
}
