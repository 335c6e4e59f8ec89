/**
 * Generated inputs at realistic size, shared by the tests that check they are read right and by
 * `npm run bench -- timings`, which measures how long reading them takes (a test asserts no time).
 */

/** A 5 MB fixed-style MPS file: 4,500 columns × 3,000 rows, 30 entries a column (135,000 nonzeros). */
export function largeMps(): { text: string; rowCount: number; columnCount: number; entriesPerColumn: number } {
  const rowCount = 3000;
  const columnCount = 4500;
  const entriesPerColumn = 30;
  const lines = ["NAME big", "ROWS", " N obj"];
  for (let i = 0; i < rowCount; i++) lines.push(` ${i % 3 === 0 ? "L" : i % 3 === 1 ? "G" : "E"}  row_${i}`);
  lines.push("COLUMNS");
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let j = 0; j < columnCount; j++) {
    lines.push(`    column_${j}  obj  ${(random() * 100).toFixed(6)}`);
    const picked = new Set<number>();
    while (picked.size < entriesPerColumn) picked.add(Math.floor(random() * rowCount));
    const sorted = [...picked].sort((a, b) => a - b);
    for (let k = 0; k < sorted.length; k += 2)
      lines.push(`    column_${j}   row_${sorted[k]}      ${(random() * 10 - 5).toFixed(10)}   row_${sorted[k + 1]}      ${(random() * 10 - 5).toFixed(10)}`);
  }
  lines.push("RHS");
  for (let i = 0; i < rowCount; i++) lines.push(`    RHS  row_${i}  ${(random() * 50).toFixed(4)}`);
  lines.push("BOUNDS");
  for (let j = 0; j < columnCount; j += 2) lines.push(` UP BND  column_${j}  ${(random() * 20).toFixed(3)}`);
  lines.push("ENDATA");
  return { text: lines.join("\n"), rowCount, columnCount, entriesPerColumn };
}

/** The classic transportation model in JModel. */
export const TRANSPORT = `set PLANTS;
set MARKETS;
param supply{PLANTS} >= 0;
param demand{MARKETS} >= 0;
param cost{PLANTS, MARKETS} >= 0 default 1;
var ship{PLANTS, MARKETS} >= 0;
minimize total: sum{p in PLANTS, m in MARKETS} cost[p, m] * ship[p, m];
subject to within_supply{p in PLANTS}: sum{m in MARKETS} ship[p, m] <= supply[p];
subject to meet_demand{m in MARKETS}: demand[m] <= sum{p in PLANTS} ship[p, m];
`;

/** Data for TRANSPORT with `plants` × `markets` routes (250 × 200: 50,000 variables, 100,000 nonzeros). */
export function transportData(plantCount = 250, marketCount = 200) {
  const plants = Array.from({ length: plantCount }, (_, i) => `p${i}`);
  const markets = Array.from({ length: marketCount }, (_, i) => `m${i}`);
  const cost: Record<string, Record<string, number>> = {};
  plants.forEach((p, i) => {
    cost[p] = {};
    markets.forEach((m, j) => (cost[p]![m] = ((i * 31 + j * 17) % 97) + 1));
  });
  return {
    PLANTS: plants,
    MARKETS: markets,
    supply: Object.fromEntries(plants.map((p) => [p, 100])),
    demand: Object.fromEntries(markets.map((m) => [m, 50])),
    cost,
  };
}
