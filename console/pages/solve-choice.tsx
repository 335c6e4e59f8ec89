import type { SolverChoice } from "@incumbent/client";
import { call, client } from "../api.js";
import { useLoad } from "../ui.js";
import { SolverPicker } from "./solver-picker.js";

/**
 * Which solver one solve runs: `auto` (the service chooses, and says why), `race` (several at once, the
 * first proven answer wins) or a named one. A race's entrants are chosen with the comparison's checkboxes;
 * none chosen leaves them to the service (every available solver able to run the model).
 */
export function SolverChoiceFields({
  solver,
  onSolver,
  entrants,
  onEntrants,
}: {
  solver: SolverChoice;
  onSolver: (solver: SolverChoice) => void;
  entrants: string[];
  onEntrants: (names: string[]) => void;
}) {
  const available = useLoad(() => call(client.api.GET("/api/v2/solvers/available")), []);
  const named = (available.value?.solvers ?? []).filter((s) => s.name !== "auto" && s.name !== "race");
  return (
    <fieldset class="solver-choice">
      <legend>Solver</legend>
      <label for="solve-solver">Run with</label>
      <select id="solve-solver" name="solver_name" value={solver} onChange={(e) => onSolver(e.currentTarget.value as SolverChoice)}>
        <option value="auto">auto: the service chooses, and says why</option>
        <option value="race">race: several at once, the first proven answer wins</option>
        {named.map((s) => (
          <option key={s.name} value={s.name} disabled={!s.available}>
            {s.name}
            {s.available ? "" : " (not available)"}
          </option>
        ))}
      </select>
      {solver === "race" ? (
        <>
          <SolverPicker chosen={entrants} onChange={onEntrants} legend="Race entrants (two or more; none chosen: every able solver)" />
          {entrants.length === 1 ? <p class="hint">Choose at least one more entrant, or none to let the service choose.</p> : null}
        </>
      ) : null}
    </fieldset>
  );
}

/** A race needs two entrants or none (the service's default); any other choice needs nothing more. */
export const choiceReady = (solver: SolverChoice, entrants: string[]) => solver !== "race" || entrants.length !== 1;
