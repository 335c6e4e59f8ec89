import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** Small shared pieces: an error line that screen readers announce, number formats, a poller. */
export function ErrorLine({ error }: { error: string | null }) {
  return error ? (
    <p role="alert" class="error">
      {error}
    </p>
  ) : null;
}

export const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function fmt(value: number | null | undefined, digits = 6): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "—";
  if (Number.isInteger(value) && Math.abs(value) < 1e12) return String(value);
  return Number(value.toPrecision(digits)).toString();
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "—");

/** Calls `tick` now and `everyMs` after each call until it resolves to false or the component goes. */
export function usePoll(tick: () => Promise<unknown>, everyMs: number, deps: unknown[]) {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      const again = await saved.current();
      if (!stopped && again !== false) timer = setTimeout(run, everyMs);
    };
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, deps);
}

/** A one-time secret: shown in a read-only field with the warning that it will not be shown again. */
export function SecretOnce({ label, value, id }: { label: string; value: string; id: string }) {
  return (
    <div class="secret" role="status">
      <label for={id}>{label}</label>
      <input id={id} readOnly value={value} size={Math.min(80, value.length + 2)} />
      <p class="hint">Copy it now: it is shown once and never again.</p>
    </div>
  );
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section aria-labelledby={id ?? undefined}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** Loads once (and again when `deps` change); keeps the error for the page to show. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { value: T | null; error: string | null; reload: () => void } {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (v) => {
        if (!live) return;
        setValue(v);
        setError(null);
      },
      (e) => {
        if (live) setError(message(e));
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  return { value, error, reload: () => setRound((r) => r + 1) };
}

/**
 * For a request too heavy to make on every change (a whole problem posted): asked once `delayMs` after
 * `deps` last changed, the one in flight aborted when they change again or the component goes, so only
 * the answer for the latest input is ever shown. Until it comes, value is null and pending true.
 */
export function useLatestLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: unknown[],
  delayMs: number,
): { value: T | null; error: string | null; pending: boolean } {
  const [state, setState] = useState<{ value: T | null; error: string | null; pending: boolean }>({ value: null, error: null, pending: true });
  const saved = useRef(load);
  saved.current = load;
  useEffect(() => {
    const abort = new AbortController();
    setState({ value: null, error: null, pending: true });
    const timer = setTimeout(() => {
      saved.current(abort.signal).then(
        (value) => {
          if (!abort.signal.aborted) setState({ value, error: null, pending: false });
        },
        (e) => {
          if (!abort.signal.aborted) setState({ value: null, error: message(e), pending: false });
        },
      );
    }, delayMs);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, deps);
  return state;
}
