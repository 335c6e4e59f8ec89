"""SCIP through pyscipopt, built directly from the canonical problem's arrays (no file, no names)."""

import re
import tempfile
import time

import numpy as np
import pyscipopt
from pyscipopt import SCIP_EVENTTYPE, SCIP_PARAMSETTING, Eventhdlr, ExprCons, quicksum

from solve_common import (
    INFINITY_THRESHOLD,
    PROGRESS_INTERVAL_SECONDS,
    Deadline,
    SolutionPool,
    bound_or_none,
    data_size_mb,
    empty_result,
    finite,
    has_open_integer_column,
    feasibility_tolerance,
    integrality_tolerance,
    memory_ceiling_mb,
    memory_limit_message,
    pool_size,
    start_columns,
    start_is_feasible,
    start_report,
    tightest,
)

# SCIP statuses that stop the search early for a reason other than the time limit.
OTHER_LIMITS = {
    "nodelimit", "totalnodelimit", "stallnodelimit", "sollimit", "bestsollimit",
    "restartlimit", "userinterrupt", "terminate", "primallimit", "duallimit",
}


def version_string():
    m = pyscipopt.Model()
    return f"SCIP {m.getMajorVersion()}.{m.getMinorVersion()}.{m.getTechVersion()} (pyscipopt {pyscipopt.__version__})"


def probe():
    return {"available": True, "version": version_string()}


class LogTail:
    """
    SCIP's log goes to a file (its screen output stays hidden: it would mix with other solves on the
    host's stderr); the lines it has completed are forwarded at most every PROGRESS_INTERVAL_SECONDS.
    """

    def __init__(self, path, reporter):
        self.path = path
        self.reporter = reporter
        self.offset = 0
        self.partial = ""
        self.last_read = 0.0

    def forward(self, force=False):
        now = time.monotonic()
        if not force and now - self.last_read < PROGRESS_INTERVAL_SECONDS:
            return
        self.last_read = now
        try:
            with open(self.path, encoding="utf-8", errors="replace") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
                self.offset = fh.tell()
        except OSError:
            return
        text = self.partial + chunk
        lines = text.split("\n")
        self.partial = "" if force else lines.pop()
        for line in lines:
            self.reporter.log(line)


class ProgressHandler(Eventhdlr):
    """Reports each new incumbent at once and the dual bound at most every PROGRESS_INTERVAL_SECONDS."""

    def __init__(self, reporter, tail=None):
        super().__init__()
        self.reporter = reporter
        self.tail = tail

    def eventinit(self):
        self.model.catchEvent(SCIP_EVENTTYPE.BESTSOLFOUND, self)
        self.model.catchEvent(SCIP_EVENTTYPE.DUALBOUNDIMPROVED, self)

    def eventexit(self):
        self.model.dropEvent(SCIP_EVENTTYPE.BESTSOLFOUND, self)
        self.model.dropEvent(SCIP_EVENTTYPE.DUALBOUNDIMPROVED, self)

    def eventexec(self, event):
        m = self.model
        force = event.getType() == SCIP_EVENTTYPE.BESTSOLFOUND
        # Inside BESTSOLFOUND the primal bound is not updated yet: read the new best solution itself.
        incumbent = m.getSolObjVal(m.getBestSol()) if m.getNSols() > 0 else None
        self.reporter.progress(incumbent, m.getDualbound(), m.getNNodes(), force=force)
        if self.tail is not None:
            self.tail.forward()


def quadratic_columns(form):
    """Columns that appear in a quadratic term, in index order."""
    return sorted(set(form["qRow"]) | set(form["qCol"]))


def objective_value(form, values):
    """The problem's objective at a point: constant + cᵀx + Σ q·xᵢ·xⱼ, evaluated, never an epigraph variable."""
    linear = sum(c * v for c, v in zip(form["colCost"], values))
    quadratic = sum(q * values[i] * values[j] for i, j, q in zip(form["qRow"], form["qCol"], form["qValues"]))
    return float(form["offset"] or 0) + linear + quadratic


def unconstrained_minimum(form, columns, sign):
    """
    min over all x of sign·f(x), f = q(x) + cᵀx over `columns`, when that is finite: f convex (for sign
    = −1, concave) and ∇f = 0 solvable. Then every feasible point is at least that good, so it bounds
    the epigraph variable. None otherwise (a nonconvex q, or a direction along which f falls for ever).
    """
    index = {j: k for k, j in enumerate(columns)}
    n = len(columns)
    hessian = np.zeros((n, n))
    for i, j, q in zip(form["qRow"], form["qCol"], form["qValues"]):
        a, b = index[i], index[j]
        if a == b:
            hessian[a, a] += 2 * sign * q
        else:
            hessian[a, b] += sign * q
            hessian[b, a] += sign * q
    cost = np.array([sign * form["colCost"][j] for j in columns], dtype=float)
    eigenvalues = np.linalg.eigvalsh(hessian)
    scale = max(1.0, float(np.max(np.abs(eigenvalues))))
    if eigenvalues.min() < -1e-9 * scale:
        return None
    stationary = np.linalg.lstsq(hessian, -cost, rcond=None)[0]
    if np.linalg.norm(hessian @ stationary + cost) > 1e-9 * max(1.0, float(np.linalg.norm(cost))):
        return None
    # At a stationary point f = ½ xᵀHx + cᵀx = ½ cᵀx.
    return 0.5 * float(cost @ stationary)


def set_quadratic_objective(m, form, xs):
    """
    SCIP's objective is linear, so the quadratic part and the linear costs of its columns go into one
    epigraph constraint f(x) ≤ t (≥ t when maximizing), with t as the objective. When f is convex
    (concave when maximizing), t gets the unconstrained optimum of f as its bound: left free, SCIP's
    LP relaxation is unbounded in t and its search never closes on free variables. The objective is
    reported from the solution (objective_value), not read off t.
    """
    columns = quadratic_columns(form)
    sign = 1 if form["sense"] == "minimize" else -1
    f = quicksum(q * xs[i] * xs[j] for i, j, q in zip(form["qRow"], form["qCol"], form["qValues"])) + quicksum(
        float(form["colCost"][j]) * xs[j] for j in columns
    )
    best = unconstrained_minimum(form, columns, sign)
    bound = None if best is None else sign * (best - 1e-6 * max(1.0, abs(best)))
    t = m.addVar(name="quadratic_objective", vtype="C", lb=bound if sign > 0 else None, ub=bound if sign < 0 else None, obj=1.0)
    m.addCons(f - t <= 0 if sign > 0 else f - t >= 0, name="quadratic_objective")


def build(form, objective=True):
    """The model and its variables in column order. objective=False gives the feasibility version."""
    m = pyscipopt.Model(form.get("name") or "problem")
    m.hideOutput()
    n = form["numCols"]
    cost, lower, upper, integrality = form["colCost"], form["colLower"], form["colUpper"], form["integrality"]
    in_epigraph = set(quadratic_columns(form)) if objective else set()
    xs = [
        m.addVar(
            name=f"x{j}",
            vtype="I" if integrality[j] else "C",
            lb=bound_or_none(lower[j]),
            ub=bound_or_none(upper[j]),
            obj=float(cost[j]) if objective and j not in in_epigraph else 0.0,
        )
        for j in range(n)
    ]
    starts, indices, values = form["rowStarts"], form["rowIndices"], form["rowValues"]
    rows = {}
    for i in range(form["numRows"]):
        if form["rowLower"][i] is None and form["rowUpper"][i] is None:
            continue  # a free row constrains nothing (and pyscipopt refuses a constraint without sides)
        expr = quicksum(values[k] * xs[indices[k]] for k in range(starts[i], starts[i + 1]))
        rows[i] = m.addCons(ExprCons(expr, lhs=bound_or_none(form["rowLower"][i]), rhs=bound_or_none(form["rowUpper"][i])), name=f"r{i}")
    m.data = rows
    if objective:
        if form["sense"] == "maximize":
            m.setMaximize()
        if form["offset"]:
            m.addObjoffset(float(form["offset"]))
        if form["qValues"]:
            set_quadratic_objective(m, form, xs)
    return m, xs


def apply_settings(m, settings, seconds):
    m.setParam("limits/time", max(seconds, 0.001))
    m.setParam("limits/gap", float(settings["gap"]))
    # SCIP's optimize() searches with one thread; lp/threads is what it offers to the LP solver.
    m.setParam("lp/threads", int(settings["threads"]))
    names = ["limits/time", "limits/gap", "lp/threads"]
    feastol = tightest(integrality_tolerance(settings), feasibility_tolerance(settings))
    if feastol is not None:
        # SCIP judges integrality and row feasibility with this one tolerance.
        m.setParam("numerics/feastol", feastol)
        names.append("numerics/feastol")
    ceiling = memory_ceiling_mb(settings)
    if ceiling:
        # SCIP stops by itself ("memlimit") before the process's data ceiling makes an allocation fail;
        # its own count leaves out the interpreter and the LP solver, hence the margin.
        m.setParam("limits/memory", max(1.0, 0.8 * (ceiling - data_size_mb())))
        names.append("limits/memory")
    return {name: m.getParam(name) for name in names}


def give_start(m, xs, form, settings):
    """
    Hands SCIP the MIP start: a complete feasible one as a solution (SCIP takes it as its first incumbent,
    "found by <initial>"); a partial or infeasible one as a partial solution of its integer columns, which
    SCIP's completesol heuristic completes or repairs with a sub-MIP.
    """
    given = start_columns(settings)
    if given is None:
        return None
    index, value = given
    if start_is_feasible(form, index, value):
        sol = m.createSol()
        for j, v in zip(index, value):
            m.setSolVal(sol, xs[j], v)
        m.addSol(sol)
        return start_report(True)
    sol = m.createPartialSol()
    for j, v in zip(index, value):
        if form["integrality"][j]:
            m.setSolVal(sol, xs[j], float(round(v)))
    m.addSol(sol)
    return start_report(True)


def judge_start(m, start):
    """SCIP's statistics name what found its first solution: <initial> (the start) or <completesol> (the start completed)."""
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as fh:
        m.writeStatistics(fh.name)
        first = next((line for line in fh if "First Solution" in line), "")
    found_by = re.search(r"found by <([^>]+)>", first)
    start["accepted"] = found_by is not None and found_by.group(1) in ("initial", "completesol")
    if found_by and found_by.group(1) == "completesol":
        start["note"] = "SCIP completed the start (completesol) into its first incumbent"
    elif not start["accepted"]:
        start["note"] = "SCIP did not take the start as its first incumbent" + (f" (found by <{found_by.group(1)}>)" if found_by else "")


def cons_length(form, i):
    return form["rowStarts"][i + 1] - form["rowStarts"][i]


class Run:
    """One optimize() call and the numbers it left behind."""

    def __init__(self, form, settings, seconds, reporter=None, presolve=True, objective=True, primal_simplex=False, excluded=(), columns=(), plain_lp=False):
        self.form = form
        self.model, self.xs = build(form, objective=objective)
        for point in excluded:
            # At least one of `columns` (all binary) differs from the point's value.
            ones = [j for j in columns if round(point[j]) == 1]
            zeros = [j for j in columns if round(point[j]) == 0]
            self.model.addCons(quicksum(1 - self.xs[j] for j in ones) + quicksum(self.xs[j] for j in zeros) >= 1)
        self.applied = apply_settings(self.model, settings, seconds)
        self.presolved = presolve
        if not presolve:
            self.model.setPresolve(SCIP_PARAMSETTING.OFF)
        if plain_lp:
            # Only the LP as given: propagation would tighten bounds the duals then refer to.
            self.model.setHeuristics(SCIP_PARAMSETTING.OFF)
            self.model.setSeparating(SCIP_PARAMSETTING.OFF)
            self.model.disablePropagation()
        if primal_simplex:
            self.model.setParam("lp/initalgorithm", "p")
            self.model.setParam("lp/resolvealgorithm", "p")
        self.start = give_start(self.model, self.xs, form, settings) if objective and any(form["integrality"]) else None
        tail = None
        if reporter is not None:
            log_path = getattr(reporter, "log_path", None)
            if log_path:
                self.model.setLogfile(log_path)
                tail = LogTail(log_path, reporter)
            self.model.includeEventhdlr(ProgressHandler(reporter, tail), "incumbent_progress", "streams incumbent and bound")
        # SCIP raises when its LP solver fails in a way it cannot recover from ("error in LP solver!").
        self.failure = None
        try:
            self.model.optimize()
        except Exception as exc:  # noqa: BLE001 - any SCIP error is reported, never a crash
            self.failure = str(exc)
        m = self.model
        if tail is not None:
            m.setLogfile(None)
            tail.forward(force=True)
        self.status = "lperror" if self.failure else m.getStatus()
        self.has_solution = m.getNSols() > 0
        self.seconds = m.getSolvingTime()
        self.nodes = m.getNNodes()
        self.iterations = m.getNLPIterations()
        if self.start is not None and not self.failure:
            judge_start(m, self.start)

    def has_point(self):
        """A finite best solution that SCIP itself finds feasible in the original problem."""
        if not self.has_solution:
            return False
        m = self.model
        sol = m.getBestSol()
        if any(abs(m.getSolVal(sol, x)) >= INFINITY_THRESHOLD for x in self.xs):
            return False
        return m.checkSol(sol, printreason=False, original=True)

    def values_of(self, sol):
        return [self.model.getSolVal(sol, x) for x in self.xs]

    def objective_of(self, sol, values):
        return objective_value(self.form, values) if self.form["qValues"] else self.model.getSolObjVal(sol)

    def fill_duals(self, result):
        """
        An LP's duals and reduced costs at SCIP's optimum, in the problem's own sense (SCIP reports them
        so; functions/core/solvers/duals.ts). Rows SCIP never saw (free rows) are left out. None where
        SCIP cannot give them; the Node side checks whatever it does give.
        """
        m = self.model
        try:
            # A one-variable row is a bound to SCIP, and its "dual" the variable's reduced cost: left out
            # here, recovered on the Node side (duals.ts, dualsWithSingletonRows).
            rows = {str(i): m.getDualSolVal(cons) for i, cons in m.data.items() if cons_length(self.form, i) > 1}
        except Exception:  # noqa: BLE001 - no duals is an answer; a wrong one would not be
            return
        if all(finite(v) is not None for v in rows.values()):
            result["row_duals"] = rows

    def fill(self, result):
        m = self.model
        result["raw_status"] = self.status
        if self.has_solution:
            sol = m.getBestSol()
            values = [m.getSolVal(sol, x) for x in self.xs]
            result["solution"] = values
            # With a quadratic objective SCIP's own value is that of the epigraph variable, which sits up to
            # its feasibility tolerance away from q(x) + cᵀx; the objective is evaluated at the point instead.
            result["objective_value"] = finite(objective_value(self.form, values) if self.form["qValues"] else m.getSolObjVal(sol))
        result["dual_bound"] = finite(m.getDualbound())


def settle_infeasible_or_unbounded(form, settings, deadline, first):
    """
    SCIP's `inforunbd` proves only that the problem is infeasible or unbounded. Without presolve SCIP
    usually tells which; if not, a feasible point for the constraints alone (objective dropped) together
    with that proof means unbounded, and a proved-infeasible feasibility problem means infeasible.
    Returns (status, message, runs).
    """
    runs = [first]
    again = Run(form, settings, deadline.remaining(), presolve=False)
    runs.append(again)
    if again.status == "infeasible" or (again.status == "unbounded" and again.has_point()):
        return again.status, None, runs
    if again.status == "timelimit":
        return "timelimit", None, runs
    if again.status in ("optimal", "gaplimit"):
        # A finite optimum contradicts the first answer; the run that proved something wins.
        return "optimal", None, runs
    feasibility = Run(form, settings, deadline.remaining(), presolve=False, objective=False)
    runs.append(feasibility)
    if feasibility.status == "infeasible":
        return "infeasible", None, runs
    if feasibility.has_solution:
        return "unbounded", None, runs
    return "error", "SCIP: infeasible or unbounded (SCIP could not tell which within the time limit)", runs


def binary_columns_only(form):
    """Every integer column is a 0/1 column: then one linear row excludes a solution's assignment."""
    return all(
        not integer or (lo is not None and up is not None and lo >= 0 and up <= 1)
        for integer, lo, up in zip(form["integrality"], form["colLower"], form["colUpper"])
    )


def stored_solutions(form, settings, run):
    """The distinct solutions SCIP stored while it searched, best first, at most solution_pool_size."""
    pool = SolutionPool(pool_size(settings), form["sense"])
    for sol in run.model.getSols():
        values = run.values_of(sol)
        pool.add(run.objective_of(sol, values), values)
    return pool


def solution_pool(form, settings, deadline, run):
    """
    Up to solution_pool_size distinct solutions, best first: those SCIP stored while it searched, then,
    when the integer columns are all binary, the best solution outside the pool, one solve at a time
    with a row that excludes each pooled assignment, while that solution still makes the pool (within
    the time left). Solved to optimality, these are the k best assignments. Returns the pool and the
    extra runs: their search is this request's too, and counts in its time, nodes and iterations.
    """
    pool = stored_solutions(form, settings, run)
    integers = [j for j, t in enumerate(form["integrality"]) if t]
    extras = []
    if not integers or not binary_columns_only(form):
        return pool.result(), extras
    while deadline.remaining() > 0.05:
        extra = Run(form, settings, deadline.remaining(), excluded=[e["solution"] for e in pool.result()], columns=integers)
        extras.append(extra)
        if not extra.has_solution or extra.status not in ("optimal", "gaplimit", "timelimit"):
            break
        sol = extra.model.getBestSol()
        values = extra.values_of(sol)
        if not pool.add(extra.objective_of(sol, values), values):
            break  # the best one left out is no better than the pool's worst
    return pool.result(), extras


def lp_duals(form, settings, deadline, run, result):
    """
    SCIP's duals describe the LP it solved last, which after presolve is not the problem as given (rows
    aggregated or turned into bounds): an LP's duals come from a run without presolve, when there is one
    or time for one. Its time counts as the solve's.
    """
    if run.presolved:
        again = Run(form, settings, max(0.001, deadline.remaining()), presolve=False, plain_lp=True)
        result["solver_time_seconds"] += again.seconds
        result["iterations"] += again.iterations
        if again.status != "optimal":
            return
        run = again
    run.fill_duals(result)


def infeasible_subsystem(form, seconds):
    """
    SCIP's IIS (generateIIS) of the feasibility version: row indices, [column, side] bounds (a bound SCIP
    kept, on a column of a kept row; iis/removebounds lets it drop bounds) and SCIP's own irreducibility
    verdict; None when SCIP does not prove the subsystem infeasible within `seconds`, or names no member.
    """
    if seconds <= 0:
        return None
    m, xs = build(form, objective=False)
    m.setParam("iis/removebounds", True)
    m.setParam("iis/silent", True)
    m.setParam("iis/time", max(float(seconds), 0.001))
    try:
        iis = m.generateIIS()
    except Exception:  # noqa: BLE001 - no IIS is an answer (the Node side then filters), never a crash
        return None
    if not iis.isSubscipInfeasible():
        return None
    sub = iis.getSubscip()
    rows = sorted(int(c.name[1:]) for c in sub.getConss() if c.name.startswith("r") and c.name[1:].isdigit())
    kept = {v.name: (v.getLbOriginal(), v.getUbOriginal()) for v in sub.getVars()}
    starts, indices = form["rowStarts"], form["rowIndices"]
    columns = sorted({indices[k] for i in rows for k in range(starts[i], starts[i + 1])})
    bounds = []
    for j in columns:
        lower, upper = bound_or_none(form["colLower"][j]), bound_or_none(form["colUpper"][j])
        sub_lower, sub_upper = kept.get(f"x{j}", (None, None))
        has_lower = lower is not None and sub_lower is not None and sub_lower > -INFINITY_THRESHOLD and sub_lower >= lower
        has_upper = upper is not None and sub_upper is not None and sub_upper < INFINITY_THRESHOLD and sub_upper <= upper
        if has_lower or has_upper:
            bounds.append([j, "both" if has_lower and has_upper else "lower" if has_lower else "upper"])
    if not rows and not bounds:
        # SCIP 10 calls the empty subsystem of 2a + 2b = 3 (a, b integer) infeasible and irreducible; no
        # members is no conflict (integrality alone always holds), so it is no IIS: the Node side filters.
        return None
    return {"rows": rows, "bounds": bounds, "irreducible": bool(iis.isSubscipIrreducible())}


def solve(form, settings, reporter):
    deadline = Deadline(settings["time_limit"])
    version = version_string()
    # The first run gets exactly the requested limit (so it reads back as sent); follow-ups the rest.
    earlier = []
    if has_open_integer_column(form):
        # With integer columns unbounded on a side SCIP's presolve can leave a search that improves for
        # ever on an unbounded MILP, where without presolve SCIP says at once; half the time without it.
        run = Run(form, settings, settings["time_limit"] / 2, reporter=reporter, presolve=False)
        if run.status == "timelimit":
            earlier = [run]
            run = Run(form, settings, deadline.remaining(), reporter=reporter)
    else:
        run = Run(form, settings, settings["time_limit"], reporter=reporter)
    applied = (earlier or [run])[0].applied
    if run.status == "lperror" or (run.status == "unbounded" and not run.has_point()):
        # Where SCIP 10 goes wrong on small problems, its presolve is involved: "unbounded" at a point
        # SCIP finds infeasible in the original problem. And its LP solver fails where SCIP rejects the
        # dual simplex's proof of an infeasible LP ("proof of infeasible LP not valid"). The problem is
        # solved again without presolve, an LP failure also with the primal simplex; that run decides.
        earlier.append(run)
        run = Run(form, settings, deadline.remaining(), presolve=False, primal_simplex=run.status == "lperror")
    status, message, runs = run.status, None, [run]
    final = run
    claimed_unbounded = any(r.status == "unbounded" for r in earlier)
    if (status == "unbounded" and not run.has_point()) or (status == "lperror" and claimed_unbounded):
        # A ray without a feasible point proves only "infeasible or unbounded"; so does a first run's
        # "unbounded" whose check without presolve failed in the LP solver.
        status = "inforunbd"

    if status == "inforunbd":
        status, message, runs = settle_infeasible_or_unbounded(form, settings, deadline, run)
        final = runs[1] if status == "optimal" else run
    runs = earlier + runs

    result = empty_result("error")
    result["solver_version"] = version
    result["settings_applied"] = applied
    given = (earlier or [run])[0].start
    if given is not None:
        result["start"] = given
    result["solver_time_seconds"] = sum(r.seconds for r in runs)
    result["nodes"] = sum(r.nodes for r in runs)
    result["iterations"] = sum(r.iterations for r in runs)

    if status in ("optimal", "gaplimit"):
        result["solver_status"] = "optimal"
        final.fill(result)
        if not any(form["integrality"]) and not form["qValues"]:
            lp_duals(form, settings, deadline, final, result)
        if pool_size(settings) > 1 and any(form["integrality"]):
            result["solution_pool"], extras = solution_pool(form, settings, deadline, final)
            result["solver_time_seconds"] += sum(r.seconds for r in extras)
            result["nodes"] += sum(r.nodes for r in extras)
            result["iterations"] += sum(r.iterations for r in extras)
    elif status in ("infeasible", "unbounded"):
        result["solver_status"] = status
        if status == "infeasible" and settings.get("explain_infeasibility"):
            result["iis"] = infeasible_subsystem(form, float(settings.get("explain_seconds") or settings["time_limit"]))
        result["raw_status"] = run.status if len(runs) == 1 else f"{run.status} -> {status}"
    elif status == "timelimit":
        result["solver_status"] = "time_limit"
        run.fill(result)
        if pool_size(settings) > 1 and any(form["integrality"]):
            # Stopped by the time limit: the solutions found so far, with no time left to look for more.
            result["solution_pool"] = stored_solutions(form, settings, run).result()
    elif status == "memlimit":
        result["raw_status"] = run.status
        result["error_message"] = memory_limit_message("SCIP", memory_ceiling_mb(settings))
    elif status in OTHER_LIMITS and run.has_solution:
        result["solver_status"] = "feasible"
        run.fill(result)
        result["error_message"] = f"SCIP stopped early: {status}"
        if pool_size(settings) > 1 and any(form["integrality"]):
            result["solution_pool"] = stored_solutions(form, settings, run).result()
    else:
        result["raw_status"] = run.status
        result["error_message"] = message or (f"SCIP: {run.failure}" if run.failure else f"SCIP stopped without a verdict: {status}")
    return result
