"""Runs SCIP (pyscipopt) and native HiGHS (highspy) for the solver container.

Three modes, one solve code path (`execute`):

  runner.py --host   A warm host: imports both solver modules once, then reads one JSON request per line
                     on stdin. For each solve it forks a child that builds the model, solves and writes one
                     JSON result file; the child leads its own process group so the Node side can kill
                     exactly that solve. Saves the ~0.2 s of interpreter start and imports per solve.
  runner.py --once   Reads one request from stdin and solves it in this process (the fallback when no host
                     is running; the caller kills this process's group at its deadline).
  runner.py --probe  Prints the installed solver builds as one JSON line.

Lines written to stdout (all JSON, one object per line, each under 4 KiB so one write is atomic on a pipe):
  {"event": "ready", "solvers": {...probe...}}                          host is up
  {"event": "started", "id": ..., "pid": ...}                            host forked a solve
  {"event": "progress", "id": ..., "incumbent": x, "bound": y, "nodes": n}  from a solving child
  {"event": "exited", "id": ..., "code": c, "signal": s}                 a solve's child was reaped
  {"event": "error", "id": ..., "message": ...}                          a request could not be started

A solve request: {"op": "solve", "id": str, "solver": "scip"|"highs", "model": <MatrixForm> or
"model_path": file, "settings": {"time_limit": s, "gap": g, "threads": n}, "result_path": file}.
"""

import json
import os
import select
import signal
import sys
import time
import traceback

# Numeric libraries must not start thread pools in the host: a fork only carries the forking thread.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import solve_common  # noqa: E402

try:
    import solve_scip  # noqa: E402
except ImportError as exc:  # pyscipopt missing: SCIP reported unavailable, HiGHS may still run
    solve_scip = None
    _scip_import_error = str(exc)
try:
    import solve_highs  # noqa: E402
except ImportError as exc:
    solve_highs = None
    _highs_import_error = str(exc)


# Where protocol lines go. A solving process moves it off fd 1 (see isolate_protocol_stream), so that
# whatever a solver library prints on its own cannot splice into a protocol line.
PROTOCOL_FD = 1


def write_line(obj):
    data = (json.dumps(obj, allow_nan=False, default=str) + "\n").encode()
    os.write(PROTOCOL_FD, data)


def isolate_protocol_stream():
    """Protocol lines keep the original stdout; fd 1 (C-level prints of SCIP or HiGHS) goes to stderr."""
    global PROTOCOL_FD
    PROTOCOL_FD = os.dup(1)
    os.dup2(2, 1)


def probe():
    out = {}
    out["scip"] = solve_scip.probe() if solve_scip else {"available": False, "detail": _scip_import_error}
    out["highs"] = solve_highs.probe() if solve_highs else {"available": False, "detail": _highs_import_error}
    return out


SOLVER_TITLES = {"scip": "SCIP", "highs": "HiGHS"}


def execute(request):
    """Solves one request and writes its result file. Used by a forked child and by --once alike."""
    req_id = request.get("id")
    streaming = bool(request.get("settings", {}).get("stream"))
    reporter = solve_common.Reporter(req_id, write_line, streaming)
    # A solver that logs to a file (SCIP) writes it beside the result file; the reporter forwards it.
    reporter.log_path = f"{request['result_path']}.log" if streaming else None
    ceiling = 0
    try:
        ceiling = solve_common.apply_memory_ceiling(request["settings"])
        model = request.get("model")
        if model is None:
            with open(request["model_path"], encoding="utf-8") as fh:
                model = json.load(fh)
        solver = request["solver"]
        module = {"scip": solve_scip, "highs": solve_highs}.get(solver)
        if module is None:
            raise RuntimeError(f"solver {solver!r} is not available in this Python environment")
        result = module.solve(model, request["settings"], reporter)
    except MemoryError:  # SCIP and HiGHS raise it when an allocation fails under the ceiling
        result = solve_common.error_result(solve_common.memory_limit_message(SOLVER_TITLES.get(request.get("solver"), "the solver"), ceiling))
    except Exception as exc:  # the solver's own words go back as an error result, never a crash
        result = solve_common.error_result(f"{type(exc).__name__}: {exc}", traceback.format_exc(limit=5))
    solve_common.write_result(request["result_path"], result)


def run_once():
    line = sys.stdin.readline()
    isolate_protocol_stream()
    execute(json.loads(line))


class Host:
    def __init__(self):
        self.children = {}  # pid -> request id
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        self.wake_r = wake_r
        signal.set_wakeup_fd(wake_w)
        # A handler (even a no-op) is needed so SIGCHLD is delivered and wakes the select below.
        signal.signal(signal.SIGCHLD, lambda *_: None)

    def start_solve(self, request):
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.setpgid(0, 0)
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                isolate_protocol_stream()
                execute(request)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        # Also set it from the parent: whichever runs first, the group exists before Node hears the pid.
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass  # the child already did it, or already exited
        self.children[pid] = request.get("id")
        write_line({"event": "started", "id": request.get("id"), "pid": pid})

    def reap(self):
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            req_id = self.children.pop(pid, None)
            event = {"event": "exited", "id": req_id, "pid": pid, "code": None, "signal": None}
            if os.WIFSIGNALED(status):
                event["signal"] = os.WTERMSIG(status)
            else:
                event["code"] = os.WEXITSTATUS(status)
            write_line(event)

    def handle(self, line):
        try:
            request = json.loads(line)
        except ValueError as exc:
            write_line({"event": "error", "id": None, "message": f"bad request line: {exc}"})
            return
        op = request.get("op")
        if op == "solve":
            self.start_solve(request)
        elif op == "probe":
            write_line({"event": "probe", "id": request.get("id"), "solvers": probe()})
        else:
            write_line({"event": "error", "id": request.get("id"), "message": f"unknown op {op!r}"})

    def shutdown(self):
        for pid in list(self.children):
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        deadline = time.monotonic() + 2
        while self.children and time.monotonic() < deadline:
            self.reap()
            time.sleep(0.01)

    def serve(self):
        write_line({"event": "ready", "pid": os.getpid(), "solvers": probe()})
        stdin_fd = sys.stdin.fileno()
        pending = b""
        while True:
            try:
                ready, _, _ = select.select([stdin_fd, self.wake_r], [], [])
            except InterruptedError:
                continue
            if self.wake_r in ready:
                try:
                    while os.read(self.wake_r, 512):
                        pass
                except BlockingIOError:
                    pass
                self.reap()
            if stdin_fd in ready:
                chunk = os.read(stdin_fd, 1 << 20)
                if not chunk:  # the worker is gone: nothing of ours may outlive it
                    self.shutdown()
                    return
                pending += chunk
                if b"\n" not in chunk:
                    continue  # a long request still arriving: do not rescan what is already buffered
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    if line.strip():
                        self.handle(line.decode("utf-8"))


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--once"
    if mode == "--host":
        Host().serve()
    elif mode == "--probe":
        write_line(probe())
    elif mode == "--once":
        run_once()
    else:
        sys.stderr.write(f"usage: runner.py --host | --once | --probe (got {mode!r})\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
