"""Pieces shared by the SCIP and HiGHS solve functions: the result shape, progress lines, number hygiene."""

import json
import math
import os
import time

# Both solvers use 1e20 (SCIP) or inf (HiGHS) for "no value"; anything this large is not a number to report.
INFINITY_THRESHOLD = 1e19

PROGRESS_INTERVAL_SECONDS = 0.5


def finite(value):
    """A reportable number, or None for infinities, NaN and the solvers' 1e20 sentinels."""
    if value is None:
        return None
    value = float(value)
    if math.isnan(value) or abs(value) >= INFINITY_THRESHOLD:
        return None
    return value


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

    def __init__(self, req_id, write_line):
        self.req_id = req_id
        self.write_line = write_line
        self.last_sent = 0.0
        self.last = (None, None, None)

    def progress(self, incumbent, bound, nodes=None, force=False):
        snapshot = (finite(incumbent), finite(bound), None if nodes is None else int(nodes))
        now = time.monotonic()
        if snapshot == self.last or (not force and now - self.last_sent < PROGRESS_INTERVAL_SECONDS):
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
