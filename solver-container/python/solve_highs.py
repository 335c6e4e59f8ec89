"""Native HiGHS through highspy, built directly from the canonical problem's arrays (no file, no names)."""

import time
from collections import deque

import highspy
import numpy as np

from solve_common import (
    Deadline,
    SolutionPool,
    empty_result,
    feasibility_tolerance,
    finite,
    has_open_integer_column,
    integrality_tolerance,
    pool_size,
    clipped_start,
    same_objective,
    start_columns,
    start_objective,
    start_report,
    tightest,
)

INF = highspy.kHighsInf
STATUS = highspy.HighsModelStatus
SOLUTION_FEASIBLE = 2  # primal_solution_status: a feasible primal solution is held

# Statuses where HiGHS stopped early for a reason other than the time limit.
OTHER_LIMITS = {
    STATUS.kObjectiveBound, STATUS.kObjectiveTarget, STATUS.kSolutionLimit, STATUS.kIterationLimit,
    STATUS.kInterrupt, STATUS.kHighsInterrupt,
}


def version_string():
    return f"HiGHS {highspy.HIGHS_VERSION_MAJOR}.{highspy.HIGHS_VERSION_MINOR}.{highspy.HIGHS_VERSION_PATCH} (native, highspy)"


def probe():
    return {"available": True, "version": version_string(), "build": f"git {highspy.Highs().githash()}"}


def option_value(h, name):
    """getOptionValue answers (status, value) in highspy 1.15 and a bare value in some other releases."""
    value = h.getOptionValue(name)
    return value[1] if isinstance(value, tuple) else value


def _bounds(values):
    return np.array([v if v is not None else np.nan for v in values], dtype=np.float64)


def build_lp(form, objective=True):
    n, m = form["numCols"], form["numRows"]
    lp = highspy.HighsLp()
    lp.num_col_ = n
    lp.num_row_ = m
    lp.col_cost_ = np.array(form["colCost"], dtype=np.float64) if objective else np.zeros(n)
    lower, upper = _bounds(form["colLower"]), _bounds(form["colUpper"])
    lp.col_lower_ = np.where(np.isnan(lower), -INF, lower)
    lp.col_upper_ = np.where(np.isnan(upper), INF, upper)
    row_lower, row_upper = _bounds(form["rowLower"]), _bounds(form["rowUpper"])
    lp.row_lower_ = np.where(np.isnan(row_lower), -INF, row_lower)
    lp.row_upper_ = np.where(np.isnan(row_upper), INF, row_upper)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_ = n
    lp.a_matrix_.num_row_ = m
    lp.a_matrix_.start_ = np.array(form["rowStarts"], dtype=np.int32)
    lp.a_matrix_.index_ = np.array(form["rowIndices"], dtype=np.int32)
    lp.a_matrix_.value_ = np.array(form["rowValues"], dtype=np.float64)
    if any(form["integrality"]):
        lp.integrality_ = [highspy.HighsVarType.kInteger if t else highspy.HighsVarType.kContinuous for t in form["integrality"]]
    if objective:
        lp.sense_ = highspy.ObjSense.kMaximize if form["sense"] == "maximize" else highspy.ObjSense.kMinimize
        lp.offset_ = float(form["offset"])
    return lp


def build_hessian(form):
    """HiGHS minimizes c'x + ½x'Qx, Q lower triangle by columns: coef·xi·xj is Q[j,i] = coef, coef·xi² is Q[i,i] = 2·coef."""
    n = form["numCols"]
    columns = [[] for _ in range(n)]
    for i, j, v in zip(form["qRow"], form["qCol"], form["qValues"]):
        columns[i].append((j, 2.0 * v if i == j else float(v)))
    hessian = highspy.HighsHessian()
    hessian.dim_ = n
    hessian.format_ = highspy.HessianFormat.kTriangular
    start, index, value = [0], [], []
    for col in columns:
        for row, v in sorted(col):
            index.append(row)
            value.append(v)
        start.append(len(index))
    hessian.start_ = np.array(start, dtype=np.int32)
    hessian.index_ = np.array(index, dtype=np.int32)
    hessian.value_ = np.array(value, dtype=np.float64)
    return hessian


class Run:
    """One HiGHS run() and the numbers it left behind."""

    def __init__(self, form, settings, seconds, reporter=None, presolve=True, objective=True):
        h = highspy.Highs()
        self.highs = h
        self.log = deque(maxlen=40)
        # Keep HiGHS's words for error messages without printing them.
        h.setOptionValue("log_to_console", False)
        h.cbLogging.subscribe(lambda e: self.log.append(e.message.rstrip()))
        if reporter is not None and reporter.streaming:
            h.cbLogging.subscribe(lambda e: reporter.log(e.message))
        if pool_size(settings) > 1:
            # HiGHS keeps every improving solution it finds when asked: the pool it can give.
            h.setOptionValue("mip_improving_solution_save", True)
        h.setOptionValue("time_limit", max(float(seconds), 0.001))
        h.setOptionValue("mip_rel_gap", float(settings["gap"]))
        h.setOptionValue("threads", int(settings["threads"]))
        if not presolve:
            h.setOptionValue("presolve", "off")
        applied = ["time_limit", "mip_rel_gap", "threads"]
        mip_tolerance = tightest(integrality_tolerance(settings), feasibility_tolerance(settings))
        if mip_tolerance is not None:
            # HiGHS judges integrality and a MIP's row feasibility with this one tolerance.
            h.setOptionValue("mip_feasibility_tolerance", mip_tolerance)
            applied.append("mip_feasibility_tolerance")
        if feasibility_tolerance(settings) is not None:
            # The LP's rows (every node's relaxation) with this one.
            h.setOptionValue("primal_feasibility_tolerance", feasibility_tolerance(settings))
            applied.append("primal_feasibility_tolerance")
        self.applied = {name: option_value(h, name) for name in applied}
        self.is_mip = any(form["integrality"])
        h.passModel(build_lp(form, objective))
        if objective and form["qValues"]:
            h.passHessian(build_hessian(form))
        self.start = self.give_start(form, settings) if objective and self.is_mip else None
        self.basis_start = self.give_basis(form, settings) if objective and not self.is_mip else None
        first_incumbent = []
        if self.start is not None and self.start["passed"]:
            h.cbMipImprovingSolution.subscribe(lambda e: first_incumbent.append(e.data_out.objective_function_value) if not first_incumbent else None)
        if reporter is not None and self.is_mip:
            h.cbMipImprovingSolution.subscribe(
                lambda e: reporter.progress(e.data_out.objective_function_value, e.data_out.mip_dual_bound, e.data_out.mip_node_count, force=True)
            )
            h.cbMipLogging.subscribe(
                lambda e: reporter.progress(e.data_out.mip_primal_bound, e.data_out.mip_dual_bound, e.data_out.mip_node_count)
            )
            if reporter.streaming:
                # HiGHS logs its search every few seconds; its interrupt check runs often, and the reporter
                # throttles what it sends to one point per PROGRESS_INTERVAL_SECONDS.
                h.cbMipInterrupt.subscribe(
                    lambda e: reporter.progress(e.data_out.mip_primal_bound, e.data_out.mip_dual_bound, e.data_out.mip_node_count)
                )
        h.run()
        self.status = h.getModelStatus()
        self.info = h.getInfo()
        self.seconds = h.getRunTime()
        self.primal_ok = self.info.primal_solution_status == SOLUTION_FEASIBLE
        if self.start is not None and self.start["passed"]:
            self.judge_start(first_incumbent[0] if first_incumbent else None)

    def give_start(self, form, settings):
        """Hands HiGHS the MIP start (setSolution, sparse: a partial start is completed by a sub-MIP of HiGHS's)."""
        given = start_columns(settings)
        if given is None:
            return None
        index, value = given
        value = clipped_start(form, index, value)
        status = self.highs.setSolution(len(index), np.array(index, dtype=np.int32), np.array(value, dtype=np.float64))
        if status == highspy.HighsStatus.kError:
            return start_report(False, note=f"HiGHS refused the start: {self.words() or 'setSolution failed'}")
        self.start_objective = start_objective(form, index, value)
        return start_report(True)

    def give_basis(self, form, settings):
        """
        Hands HiGHS an LP's starting basis (settings.initial_basis: a status per column and row, in HiGHS's
        HighsBasisStatus numbering). HiGHS answers OK even for a basis it then discards, so one without
        exactly one basic status per row is reported as not taken.
        """
        given = settings.get("initial_basis")
        if not given:
            return None
        basis = highspy.HighsBasis()
        basis.col_status = [highspy.HighsBasisStatus(int(s)) for s in given["col"]]
        basis.row_status = [highspy.HighsBasisStatus(int(s)) for s in given["row"]]
        basis.valid = True
        basic = sum(1 for s in list(given["col"]) + list(given["row"]) if int(s) == int(highspy.HighsBasisStatus.kBasic))
        status = self.highs.setBasis(basis)
        if status == highspy.HighsStatus.kError:
            return start_report(False, note=f"HiGHS refused the basis: {self.words() or 'setBasis failed'}")
        if basic != form["numRows"]:
            return start_report(True, False, f"not a basis: {basic} basic statuses for {form['numRows']} rows; HiGHS started without it")
        return start_report(True, True)

    def fill_basis(self, result):
        """An LP's optimal basis (HighsBasisStatus numbers by column and row), for a later solve to start from."""
        basis = self.highs.getBasis()
        if basis.valid:
            result["basis"] = {"col": [int(s) for s in basis.col_status], "row": [int(s) for s in basis.row_status]}

    def judge_start(self, first_incumbent):
        """
        HiGHS takes a feasible complete start as its first incumbent (it prints no word for it but the
        source X): accepted when the first incumbent is the start's objective. A partial start is completed
        by a sub-MIP whose point HiGHS does not tell apart from its own: no word then.
        """
        if self.start_objective is None:
            return
        self.start["accepted"] = same_objective(first_incumbent, self.start_objective)
        if not self.start["accepted"]:
            self.start["note"] = "HiGHS did not take the start as its first incumbent"

    def status_text(self):
        return self.highs.modelStatusToString(self.status)

    def iterations(self):
        i = self.info
        return sum(max(0, c) for c in (i.simplex_iteration_count, i.ipm_iteration_count, i.qp_iteration_count, i.pdlp_iteration_count))

    def fill(self, result):
        """Objective and solution only when HiGHS holds a feasible primal solution (not after every time limit)."""
        if self.primal_ok:
            result["objective_value"] = finite(self.info.objective_function_value)
            result["solution"] = list(self.highs.getSolution().col_value)
        if self.is_mip:
            result["dual_bound"] = finite(self.info.mip_dual_bound)
        elif self.status == STATUS.kOptimal:
            result["dual_bound"] = result["objective_value"]

    def fill_duals(self, result):
        """An LP's row duals and reduced costs, in HiGHS's convention (that of functions/core/solvers/duals.ts)."""
        solution = self.highs.getSolution()
        if not solution.dual_valid:
            return
        rows, columns = list(solution.row_dual), list(solution.col_dual)
        if all(finite(v) is not None for v in rows + columns):
            result["row_duals"] = {str(i): v for i, v in enumerate(rows)}
            result["col_duals"] = columns

    def fill_ranging(self, result, form):
        """Cost ranges by column and active-side ranges by row of the optimal basis (None = no limit)."""
        status, ranging = self.highs.getRanging()
        if status != highspy.HighsStatus.kOk or not ranging.valid:
            return
        n, m = form["numCols"], form["numRows"]
        values = lambda r, k: [finite(v) for v in list(r.value_)[:k]]  # noqa: E731
        result["ranging"] = {
            "cost_down": values(ranging.col_cost_dn, n),
            "cost_up": values(ranging.col_cost_up, n),
            "rhs_down": values(ranging.row_bound_dn, m),
            "rhs_up": values(ranging.row_bound_up, m),
        }

    def pool(self, form, size):
        """The improving solutions HiGHS saved (each better than the one before), best first, distinct."""
        pool = SolutionPool(size, form["sense"])
        if self.primal_ok:
            pool.add(self.info.objective_function_value, self.highs.getSolution().col_value)
        for saved in reversed(self.highs.getSavedMipSolutions()):
            if len(saved.col_value) == form["numCols"]:
                pool.add(saved.objective, saved.col_value)
        return pool.result()

    def words(self):
        lines = [line for line in self.log if line.strip()]
        return " | ".join(lines[-6:])


# kIisStrategyFromLp | kIisStrategyIrreducible: the default ("light") checks bounds alone and leaves a
# conflict between rows unexplained; from the LP, then made irreducible by HiGHS's own deletion.
IIS_STRATEGY = int(highspy.IisStrategy.kIisStrategyFromLp) | int(highspy.IisStrategy.kIisStrategyIrreducible)
IIS_IRREDUCIBLE = 3  # kIisModelStatusIrreducible: highspy 1.15 binds no enum for the IIS's own status
IIS_BOUND_SIDES = {
    int(highspy.IisBoundStatus.kIisBoundStatusLower): "lower",
    int(highspy.IisBoundStatus.kIisBoundStatusUpper): "upper",
    int(highspy.IisBoundStatus.kIisBoundStatusBoxed): "both",
}


def infeasible_subsystem(form, seconds):
    """
    HiGHS's IIS of an infeasible LP (HiGHS 1.15 has none for MILPs): row indices, [column, side] bounds
    and whether HiGHS calls it irreducible; None when it gives no valid one within `seconds`.
    """
    if any(form["integrality"]) or seconds <= 0:
        return None
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", max(float(seconds), 0.001))
    h.setOptionValue("iis_strategy", IIS_STRATEGY)
    h.passModel(build_lp(form, objective=False))
    h.run()
    status, iis = h.getIis()
    if status == highspy.HighsStatus.kError or not iis.valid_ or (len(iis.row_index_) + len(iis.col_index_)) == 0:
        return None
    bounds = [[int(j), IIS_BOUND_SIDES[int(b)]] for j, b in zip(iis.col_index_, iis.col_bound_) if int(b) in IIS_BOUND_SIDES]
    return {"rows": [int(i) for i in iis.row_index_], "bounds": bounds, "irreducible": int(iis.status_) == IIS_IRREDUCIBLE}


def run_with_presolve_choice(form, settings, seconds, reporter=None, objective=True):
    """
    One solve, and the runs before it. With an integer column unbounded on a side, HiGHS 1.15's presolve
    can leave a search that never closes (and overruns its own time limit) where the search without
    presolve ends at once; yet presolve alone proves some of these infeasible (2x − 2y = 1). So: half
    the time without presolve, then the rest with it.
    """
    if not has_open_integer_column(form):
        run = Run(form, settings, seconds, reporter=reporter, objective=objective)
        if run.status != STATUS.kSolveError:
            return run, []
        # HiGHS 1.15's presolve can end an infeasible LP over free columns in "Solve error"; without it, HiGHS decides.
        return Run(form, settings, max(0.001, seconds - run.seconds), objective=objective, presolve=False), [run]
    started = time.monotonic()
    first = Run(form, settings, seconds / 2, reporter=reporter, presolve=False, objective=objective)
    if first.status != STATUS.kTimeLimit:
        return first, []
    left = max(0.001, seconds - (time.monotonic() - started))
    return Run(form, settings, left, reporter=reporter, objective=objective), [first]


def integral_relaxation_optimum(form, settings, seconds):
    """
    HiGHS 1.15's MIP presolve calls some feasible MILPs infeasible. Its LP relaxation then refutes the
    claim when the relaxation's optimum is integral on the integer columns: that point is feasible for
    the MILP and nothing beats it, so it is the MILP's optimum. The run, or None.
    """
    relaxation = Run(dict(form, integrality=[0] * form["numCols"]), settings, max(0.001, seconds))
    if relaxation.status != STATUS.kOptimal or not relaxation.primal_ok:
        return None
    values = relaxation.highs.getSolution().col_value
    if all(abs(v - round(v)) <= 1e-9 for v, integer in zip(values, form["integrality"]) if integer):
        return relaxation
    return None


def settle_infeasible_or_unbounded(form, settings, deadline, first):
    """
    kUnboundedOrInfeasible proves only one of the two. HiGHS without presolve usually tells which; if
    not, a feasible point for the constraints alone plus that proof means unbounded.
    """
    runs = [first]
    again = Run(form, settings, deadline.remaining(), presolve=False)
    runs.append(again)
    if again.status in (STATUS.kInfeasible, STATUS.kUnbounded, STATUS.kOptimal, STATUS.kTimeLimit):
        return again.status, runs
    feasibility, _ = run_with_presolve_choice(form, settings, deadline.remaining(), objective=False)
    runs.append(feasibility)
    if feasibility.status == STATUS.kInfeasible:
        return STATUS.kInfeasible, runs
    if feasibility.primal_ok:
        return STATUS.kUnbounded, runs
    return STATUS.kUnboundedOrInfeasible, runs


def solve(form, settings, reporter):
    deadline = Deadline(settings["time_limit"])
    result = empty_result("error")
    result["solver_version"] = version_string()
    if form["qValues"] and any(form["integrality"]):
        result["error_message"] = "HiGHS does not solve problems with both integer variables and quadratic terms"
        return result

    # The first run gets exactly the requested limit (so it reads back as sent); follow-ups the rest.
    run, earlier = run_with_presolve_choice(form, settings, settings["time_limit"], reporter=reporter)
    status, runs = run.status, [run]
    if status == STATUS.kUnboundedOrInfeasible:
        status, runs = settle_infeasible_or_unbounded(form, settings, deadline, run)
    final = runs[1] if len(runs) > 1 and status == STATUS.kOptimal else run
    if status == STATUS.kInfeasible and run.is_mip:
        relaxed = integral_relaxation_optimum(form, settings, deadline.remaining())
        if relaxed is not None:
            status, final = STATUS.kOptimal, relaxed
            runs.append(relaxed)

    result["settings_applied"] = (earlier or runs)[0].applied
    given = (earlier or runs)[0].start
    if given is not None:
        result["start"] = given
    if (earlier or runs)[0].basis_start is not None:
        result["basis_start"] = (earlier or runs)[0].basis_start
    result["raw_status"] = " -> ".join(r.status_text() for r in (earlier + runs)[:3])
    result["solver_time_seconds"] = sum(r.seconds for r in earlier + runs)
    result["iterations"] = sum(r.iterations() for r in earlier + runs)
    result["nodes"] = sum(max(0, r.info.mip_node_count) for r in earlier + runs) if run.is_mip else None

    if status == STATUS.kOptimal and final.primal_ok:
        result["solver_status"] = "optimal"
        final.fill(result)
        if not final.is_mip and not form["qValues"]:
            final.fill_duals(result)
            final.fill_basis(result)
            if settings.get("ranging"):
                final.fill_ranging(result, form)
        if pool_size(settings) > 1 and any(form["integrality"]):
            # The relaxation's integral optimum (integral_relaxation_optimum) is the one solution known.
            result["solution_pool"] = final.pool(form, pool_size(settings))
    elif status == STATUS.kInfeasible:
        result["solver_status"] = "infeasible"
        if settings.get("explain_infeasibility"):
            result["iis"] = infeasible_subsystem(form, float(settings.get("explain_seconds") or settings["time_limit"]))
    elif status == STATUS.kUnbounded:
        result["solver_status"] = "unbounded"
    elif status == STATUS.kTimeLimit:
        result["solver_status"] = "time_limit"
        stopped = runs[-1] if len(runs) > 1 else run
        stopped.fill(result)
        if pool_size(settings) > 1 and stopped.is_mip:
            # Stopped by the time limit: the improving solutions saved so far.
            result["solution_pool"] = stopped.pool(form, pool_size(settings))
    elif status in OTHER_LIMITS and run.primal_ok:
        result["solver_status"] = "feasible"
        run.fill(result)
        result["error_message"] = f"HiGHS stopped early: {run.status_text()}"
        if pool_size(settings) > 1 and run.is_mip:
            result["solution_pool"] = run.pool(form, pool_size(settings))
    elif status == STATUS.kUnboundedOrInfeasible:
        result["error_message"] = "HiGHS: infeasible or unbounded (HiGHS could not tell which)"
    else:
        words = run.words()
        result["error_message"] = f"HiGHS: {run.status_text()}" + (f" ({words})" if words else "")
    return result
