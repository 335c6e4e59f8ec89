import { call, client } from "../api.js";
import { useLoad } from "../ui.js";

export const MAX_SOLVERS = 8;

/** Checkboxes for the registered solvers (unavailable ones shown, disabled), at most eight chosen. */
export function SolverPicker({
  chosen,
  onChange,
  legend = "Solvers (up to 8, run in this order)",
}: {
  chosen: string[];
  onChange: (names: string[]) => void;
  legend?: string;
}) {
  const available = useLoad(() => call(client.api.GET("/api/v2/solvers/available")), []);
  const solvers = (available.value?.solvers ?? []).filter((s) => s.name !== "auto");
  const toggle = (name: string, on: boolean) => onChange(on ? [...chosen, name] : chosen.filter((n) => n !== name));
  return (
    <fieldset class="solvers">
      <legend>{legend}</legend>
      {solvers.map((s) => (
        <label key={s.name} class="check">
          <input
            type="checkbox"
            name="solver"
            value={s.name}
            checked={chosen.includes(s.name)}
            disabled={!s.available || (!chosen.includes(s.name) && chosen.length >= MAX_SOLVERS)}
            onChange={(e) => toggle(s.name, (e.currentTarget as HTMLInputElement).checked)}
          />{" "}
          {s.name}
          <span class="hint"> {s.available ? (s.version ?? "") : "not available"}</span>
        </label>
      ))}
      {available.error ? <p role="alert">{available.error}</p> : null}
    </fieldset>
  );
}

/** Time limit and gap tolerance; threads are the platform's (reported back in each comparison). */
export function SettingsFields({ prefix }: { prefix: string }) {
  return (
    <fieldset class="settings">
      <legend>Settings</legend>
      <label for={`${prefix}-time`}>Time limit (s)</label>
      <input id={`${prefix}-time`} name="time_limit_seconds" type="number" min={1} step="any" value="60" />
      <label for={`${prefix}-gap`}>Gap tolerance</label>
      <input id={`${prefix}-gap`} name="gap_tolerance" type="number" min={0} step="any" value="0.0001" />
    </fieldset>
  );
}

export const settingsFrom = (form: FormData) => ({
  time_limit_seconds: Number(form.get("time_limit_seconds") || 60),
  gap_tolerance: Number(form.get("gap_tolerance") || 0.0001),
});
