"""Pieces shared by the SCIP and HiGHS solve functions: the result shape, progress lines, number hygiene."""

import json
import math
import os
import resource
import time

# Both solvers use 1e20 (SCIP) or inf (HiGHS) for "no value"; anything this large is not a number to report.
INFINITY_THRESHOLD = 1e19

PROGRESS_INTERVAL_SECONDS = 0.5

# One protocol line stays under 4 KiB (an atomic pipe write): a longer log line is cut.
LOG_LINE_MAX_CHARS = 1000


def finite(value):
    """A reportable number, or None for infinities, NaN and the solvers' 1e20 sentinels."""
    if value is None:
        return None
    value = float(value)
    if math.isnan(value) or abs(value) >= INFINITY_THRESHOLD:
        return None
    return value


def has_open_integer_column(form):
    """An integer column with an infinite bound: branch and bound cannot enumerate it, and presolvers stall on it."""
    return any(t and (lo is None or up is None) for t, lo, up in zip(form["integrality"], form["colLower"], form["colUpper"]))


def bound_or_none(value):
    """Bounds from the canonical JSON: null means infinite."""
    return None if value is None else float(value)


def empty_result(status, message=None):
    return {
        "solver_status": status,
        "objective_value": None,
        "dual_bound": None,
        "nodes": None,
        "iterations": None,
        "solver_time_seconds": None,
        "solution": None,
        "solver_version": None,
        "error_message": message,
        "settings_applied": None,
        "raw_status": None,
    }


def error_result(message, detail=None):
    result = empty_result("error", message)
    if detail:
        result["error_detail"] = detail
    return result


def write_result(path, result):
    """Write-then-rename, so the reader never sees half a file. JSON has no NaN or infinity: a result
    carrying one becomes an error result rather than a file the Node side cannot read."""
    try:
        text = json.dumps(result, allow_nan=False)
    except ValueError as exc:
        text = json.dumps(error_result(f"the solver returned a non-finite number ({exc})"))
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


class Reporter:
    """Streams the incumbent and bound to the Node side, which keeps the last one for the kill switch."""

    def __init__(self, req_id, write_line, streaming=False):
        # streaming: someone records the solve's log and progress (else only the last point matters, to
        # the kill switch), so log lines are forwarded and solvers report between their own log lines.
        self.streaming = streaming
        self.req_id = req_id
        self.write_line = write_line
        self.last_sent = 0.0
        self.last = (None, None, None)

    def log(self, text):
        """Forwards the solver's own log lines (the Node side stores them with the progress)."""
        for line in str(text).splitlines():
            if line.strip():
                self.write_line({"event": "log", "id": self.req_id, "text": line[:LOG_LINE_MAX_CHARS]})

    def progress(self, incumbent, bound, nodes=None, force=False):
        now = time.monotonic()
        # The common call (a solver's per-node callback between two reports) returns here, at once.
        if not force and now - self.last_sent < PROGRESS_INTERVAL_SECONDS:
            return
        snapshot = (finite(incumbent), finite(bound), None if nodes is None else int(nodes))
        if snapshot == self.last:
            return
        self.last = snapshot
        self.last_sent = now
        self.write_line(
            {"event": "progress", "id": self.req_id, "incumbent": snapshot[0], "bound": snapshot[1], "nodes": snapshot[2]}
        )


class Deadline:
    """One time budget for a solve that may need follow-up solves to settle its verdict."""

    def __init__(self, seconds):
        self.end = time.monotonic() + float(seconds)

    def remaining(self):
        return max(0.0, self.end - time.monotonic())


def memory_ceiling_mb(settings):
    """The solve's memory ceiling in MB (settings.memory_mb, from SOLVER_MEMORY_MB), or 0 for none."""
    return max(0, int(settings.get("memory_mb") or 0))


def data_size_mb():
    """This process's data segment now (VmData), in MB: what a ceiling leaves room beyond."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def apply_memory_ceiling(settings):
    """
    Puts the solving process (a forked solve child, or a one-shot runner) under RLIMIT_DATA = the
    ceiling: past it an allocation fails, which SCIP and HiGHS turn into a MemoryError, never a crash
    of the worker. Never called in the warm host itself.
    """
    mb = memory_ceiling_mb(settings)
    if mb > 0:
        _, hard = resource.getrlimit(resource.RLIMIT_DATA)
        limit = mb << 20
        resource.setrlimit(resource.RLIMIT_DATA, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    return mb


def memory_limit_message(solver_title, mb):
    ceiling = f"its memory ceiling of {mb} MB (SOLVER_MEMORY_MB)" if mb else "the memory available"
    return f"memory limit: {solver_title} needed more than {ceiling}"


def integrality_tolerance(settings):
    """The integrality tolerance the verification gate asks for on a repeat, or None for the solver's default."""
    value = settings.get("integrality_tolerance")
    return None if value is None else float(value)


def feasibility_tolerance(settings):
    """The row feasibility tolerance the verification gate asks for on a repeat, or None for the solver's default."""
    value = settings.get("feasibility_tolerance")
    return None if value is None else float(value)


def tightest(*values):
    """The smallest of the tolerances given (None: not given), or None when none is."""
    given = [v for v in values if v is not None]
    return min(given) if given else None


def pool_size(settings):
    """How many distinct solutions the request wants back (1: only the best)."""
    return max(1, int(settings.get("solution_pool_size") or 1))


class SolutionPool:
    """Distinct solutions (values rounded to 1e-9 relative tell them apart), kept best first."""

    def __init__(self, size, sense):
        self.size = size
        self.sign = -1 if sense == "maximize" else 1
        self.entries = []
        self.seen = set()

    def full(self):
        return len(self.entries) >= self.size

    def add(self, objective, values):
        objective = finite(objective)
        if objective is None or any(finite(v) is None for v in values):
            return False
        key = tuple(round(float(v), 9) for v in values)
        if key in self.seen:
            return False
        self.seen.add(key)
        entry = {"objective_value": objective, "solution": [float(v) for v in values]}
        self.entries.append(entry)
        self.entries.sort(key=lambda e: self.sign * e["objective_value"])
        del self.entries[self.size:]
        return any(e is entry for e in self.entries)

    def result(self):
        return self.entries


def start_columns(settings):
    """The MIP start (settings.initial_solution) as (column indices, values), or None when none was given."""
    start = settings.get("initial_solution")
    if not start or not start.get("index"):
        return None
    return [int(j) for j in start["index"]], [float(v) for v in start["value"]]


def clipped_start(form, index, value):
    """The start's values inside their columns' bounds: both solvers refuse a value outside them, where a
    value at the bound is something they can repair from."""
    out = []
    for j, v in zip(index, value):
        lower, upper = bound_or_none(form["colLower"][j]), bound_or_none(form["colUpper"][j])
        if lower is not None:
            v = max(v, lower)
        if upper is not None:
            v = min(v, upper)
        out.append(v)
    return out


def start_objective(form, index, value):
    """The linear objective at a complete start, or None for a partial one (or a quadratic objective)."""
    if len(index) != form["numCols"] or form["qValues"]:
        return None
    return float(form["offset"]) + sum(form["colCost"][j] * v for j, v in zip(index, value))


def same_objective(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-6 * max(1.0, abs(b))


def start_report(passed, accepted=None, note=None):
    """What the result says of the start: the Node side turns it into the result's warm_start."""
    return {"passed": bool(passed), "accepted": accepted, "note": note}


def start_is_feasible(form, index, value, tolerance=1e-6):
    """A complete start within its bounds, rows and integrality (to `tolerance` relative to max(1, |side|))."""
    if len(index) != form["numCols"]:
        return False
    x = [0.0] * form["numCols"]
    for j, v in zip(index, value):
        x[j] = v

    def outside(v, lower, upper):
        lower, upper = bound_or_none(lower), bound_or_none(upper)
        return (lower is not None and v < lower - tolerance * max(1.0, abs(lower))) or (
            upper is not None and v > upper + tolerance * max(1.0, abs(upper))
        )

    for j in range(form["numCols"]):
        if outside(x[j], form["colLower"][j], form["colUpper"][j]):
            return False
        if form["integrality"][j] and abs(x[j] - round(x[j])) > tolerance:
            return False
    starts, indices, values = form["rowStarts"], form["rowIndices"], form["rowValues"]
    for i in range(form["numRows"]):
        activity = sum(values[k] * x[indices[k]] for k in range(starts[i], starts[i + 1]))
        if outside(activity, form["rowLower"][i], form["rowUpper"][i]):
            return False
    return True
