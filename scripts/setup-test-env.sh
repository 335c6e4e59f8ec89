#!/usr/bin/env bash
# Installs the solvers the service runs (and what the tests need), where it can, and says plainly what
# it could not. Idempotent, and quick when everything is present. `npm start` and `npm run bench` run it as `start`,
# `npm test` without an argument.
#  - CLI solvers coinor-cbc and glpk-utils from Debian's packages (when run as root with apt-get)
#  - the Python solver runtimes (pyscipopt = SCIP, highspy = native HiGHS) into the project's .venv
#  - for the tests also moto_server (checked, not installed) and Debian's chromium (installed when
#    missing; the console's browser tests drive it)
# Under CI=true a missing piece is an error for the tests: CI proves the whole thing. `npm start` goes on
# without it: the service reports that solver not_available.
set -u
cd "$(dirname "$0")/.."
mode="${1:-test}"
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

# One interpreter start checks both modules and reads their versions; a stamp written after a good check
# skips even that while the venv and the requirements are unchanged (the fast path of every start).
stamp=.venv/.solver-versions
py_versions() {
  if [ -s "$stamp" ] && [ "$stamp" -nt solver-container/python/requirements.txt ] && [ "$stamp" -nt .venv/pyvenv.cfg ] && [ -x .venv/bin/python ]; then
    cat "$stamp"
    return
  fi
  [ -x .venv/bin/python ] || return
  local found
  found="$(.venv/bin/python -c 'import pyscipopt, highspy; print("SCIP", pyscipopt.Model().version(), "/ HiGHS", highspy.Highs().version())' 2>/dev/null)"
  if [ -n "$found" ]; then printf '%s\n' "$found" > "$stamp"; fi
  printf '%s' "$found"
}
python_solvers="$(py_versions)"
if [ -z "$python_solvers" ]; then
  if command -v python3 >/dev/null 2>&1; then
    say "creating .venv with pyscipopt and highspy (pip's configured index or mirror)"
    [ -x .venv/bin/python ] || python3 -m venv .venv >/dev/null 2>&1 || say "python3 -m venv failed (Debian: apt-get install python3-venv)"
    if [ -x .venv/bin/pip ]; then
      .venv/bin/pip install -q --disable-pip-version-check --retries 0 -r solver-container/python/requirements.txt >/dev/null 2>&1 \
        || say "pip could not install solver-container/python/requirements.txt"
    fi
    python_solvers="$(py_versions)"
  else
    say "python3 not found: SCIP and native HiGHS will be reported not_available"
  fi
fi
[ -n "$python_solvers" ] || missing+=("pyscipopt/highspy")

[ "$mode" = "start" ] || command -v moto_server >/dev/null 2>&1 || missing+=("moto_server")

if [ "$mode" != "start" ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    say "installing chromium from Debian's packages (the console's browser tests)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 \
      || say "apt-get could not install chromium"
  else
    say "chromium missing and not root: install Debian's chromium yourself"
  fi
fi
[ "$mode" = "start" ] || command -v chromium >/dev/null 2>&1 || missing+=("chromium")

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$mode" = "start" ]; then
    say "not available on this machine: ${missing[*]} (the service reports the solvers they carry not_available; see README)"
    exit 0
  fi
  say "not available on this machine: ${missing[*]} (tests that need them skip, and fail under CI=true)"
  if [ "${CI:-}" = "true" ]; then exit 1; fi
else
  say "solvers ready: cbc $(cbc -quit 2>/dev/null | sed -n "s/^Version: *\([^ ]*\).*/\1/p" | head -1), $(glpsol --version | head -1), $python_solvers"
fi
exit 0
