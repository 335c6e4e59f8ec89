#!/usr/bin/env bash
# Installs what the tests need, where it can, and says plainly what it could not.
#  - CLI solvers coinor-cbc and glpk-utils from Debian's packages (when run as root with apt-get)
#  - the Python solver runtimes (pyscipopt = SCIP, highspy = native HiGHS) into the project's .venv
# Under CI=true a missing piece is an error: CI proves the whole thing.
set -u
cd "$(dirname "$0")/.."
missing=()

say() { printf '[setup] %s\n' "$*"; }

if ! command -v cbc >/dev/null 2>&1 || ! command -v glpsol >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    say "installing coinor-cbc and glpk-utils from Debian's packages"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq coinor-cbc glpk-utils) >/dev/null 2>&1 \
      || say "apt-get could not install coinor-cbc/glpk-utils"
  else
    say "cbc/glpsol missing and not root: install coinor-cbc and glpk-utils yourself"
  fi
fi
command -v cbc >/dev/null 2>&1 || missing+=("cbc")
command -v glpsol >/dev/null 2>&1 || missing+=("glpsol")

py_ok() { [ -x .venv/bin/python ] && .venv/bin/python -c "import pyscipopt, highspy" >/dev/null 2>&1; }
if ! py_ok; then
  if command -v python3 >/dev/null 2>&1; then
    say "creating .venv with pyscipopt and highspy (pip's configured index or mirror)"
    [ -x .venv/bin/python ] || python3 -m venv .venv >/dev/null 2>&1 || say "python3 -m venv failed"
    if [ -x .venv/bin/pip ]; then
      .venv/bin/pip install -q --disable-pip-version-check --retries 0 -r solver-container/python/requirements.txt >/dev/null 2>&1 \
        || say "pip could not install solver-container/python/requirements.txt"
    fi
  else
    say "python3 not found: SCIP and native HiGHS will be reported not_available"
  fi
fi
py_ok || missing+=("pyscipopt/highspy")

command -v moto_server >/dev/null 2>&1 || missing+=("moto_server")

if [ ${#missing[@]} -gt 0 ]; then
  say "not available on this machine: ${missing[*]} (tests that need them skip, and fail under CI=true)"
  if [ "${CI:-}" = "true" ]; then exit 1; fi
else
  say "solvers ready: cbc $(cbc -quit 2>/dev/null | sed -n "s/^Version: *\([^ ]*\).*/\1/p" | head -1), $(glpsol --version | head -1), $(.venv/bin/python -c 'import pyscipopt,highspy;print("SCIP",pyscipopt.Model().version(),"/ HiGHS",highspy.Highs().version())' 2>/dev/null)"
fi
exit 0
