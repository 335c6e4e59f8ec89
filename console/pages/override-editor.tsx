import type { RequestBody } from "@incumbent/client";

/** One field of a trigger's override_schema, as the API takes it. */
type OverrideField = NonNullable<RequestBody<"/api/v2/triggers", "post">["override_schema"]>[number];

export interface OverrideRow {
  name: string;
  type: string;
  required: boolean;
  /** JSON text; empty means no default */
  defaultText: string;
}

const TYPES = ["array", "object", "number", "integer", "string", "boolean"];

/** The rows as the API's override_schema; a default that is not JSON is refused before sending. */
export function overrideSchemaOf(rows: OverrideRow[]): OverrideField[] {
  return rows.map((r) => {
    const field: OverrideField = { name: r.name.trim(), type: r.type as OverrideField["type"], required: r.required };
    if (r.defaultText.trim() !== "") {
      try {
        field.default = JSON.parse(r.defaultText);
      } catch {
        throw new Error(`The default of override "${r.name}" is not JSON.`);
      }
    }
    return field;
  });
}

/** One row per overridable field: name (the model's sets and parameters are suggested), type, required, default. */
export function OverrideSchemaEditor({ rows, onChange, overridable }: { rows: OverrideRow[]; onChange: (rows: OverrideRow[]) => void; overridable: string[] }) {
  const set = (i: number, patch: Partial<OverrideRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset class="overrides">
      <legend>Override schema: what a fire may change</legend>
      <datalist id="overridable-names">
        {[...overridable, "solver_name"].map((n) => (
          <option key={n} value={n} />
        ))}
      </datalist>
      {rows.map((r, i) => (
        <div class="override-row" key={i}>
          <label for={`ov-name-${i}`}>Field name</label>
          <input
            id={`ov-name-${i}`}
            list="overridable-names"
            value={r.name}
            required
            onInput={(e) => set(i, { name: (e.currentTarget as HTMLInputElement).value })}
          />
          <label for={`ov-type-${i}`}>Type</label>
          <select id={`ov-type-${i}`} value={r.type} onChange={(e) => set(i, { type: (e.currentTarget as HTMLSelectElement).value })}>
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          <label class="check">
            <input type="checkbox" checked={r.required} onChange={(e) => set(i, { required: (e.currentTarget as HTMLInputElement).checked })} /> Required
          </label>
          <label for={`ov-default-${i}`}>Default (JSON)</label>
          <input id={`ov-default-${i}`} value={r.defaultText} onInput={(e) => set(i, { defaultText: (e.currentTarget as HTMLInputElement).value })} />
          <button type="button" onClick={() => onChange(rows.filter((_, j) => j !== i))} aria-label={`Remove override field ${r.name || i + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...rows, { name: "", type: "number", required: false, defaultText: "" }])}>
        Add override field
      </button>
    </fieldset>
  );
}
