/**
 * The health endpoint's "test solve": a two-variable LP solved in-process with HiGHS's WebAssembly
 * build, which ships inside the API bundle (the native solvers live in the solver fleet).
 * The optimum is known (x = 1.6, y = 1.2, objective 2.8), so a wrong answer is caught, not just a crash.
 */
const TEST_LP = "Maximize\n obj: x + y\nSubject To\n c1: x + 2 y <= 4\n c2: 3 x + y <= 6\nEnd\n";
const EXPECTED = 2.8;

type HighsModule = { solve(lp: string): { Status: string; ObjectiveValue: number } };
let loaded: Promise<HighsModule> | null = null;

export async function testSolve(): Promise<{ ok: boolean; message: string | null }> {
  try {
    loaded ??= import("highs").then((m) => (m.default as unknown as () => Promise<HighsModule>)());
    const highs = await loaded;
    const result = highs.solve(TEST_LP);
    if (result.Status !== "Optimal" || Math.abs(result.ObjectiveValue - EXPECTED) > 1e-6) {
      return { ok: false, message: `test solve answered ${result.Status} ${result.ObjectiveValue}, expected Optimal ${EXPECTED}` };
    }
    return { ok: true, message: null };
  } catch (error) {
    loaded = null;
    return { ok: false, message: `test solve failed: ${(error as Error).message}` };
  }
}
