#!/usr/bin/env bash
# Install what the RTL bench (rtl/) needs on a fresh Debian bookworm machine; safe to run again.
#   Debian: verilator (5.006 in bookworm), make, g++ (Verilator compiles its C++ model)
#   PyPI (into $PYTHON, default .venv/bin/python, when it lacks them):
#        cocotb 1.8.x, pyuvm 2.9.x, cocotbext-axi   (the `rtl` extra of pyproject.toml)
# cocotb 1.8 is the newest cocotb that supports bookworm's Verilator 5.006 (1.9 needs >= 5.022);
# see README.md, "Toolchain".
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for pkg in verilator make g++; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "install_rtl_tools: apt-get install ${missing[*]}" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python=${PYTHON:-.venv/bin/python}
if [ -x "$python" ] || command -v "$python" >/dev/null 2>&1; then
    if ! "$python" -c "import cocotb, pyuvm, cocotbext.axi" >/dev/null 2>&1; then
        echo "install_rtl_tools: pip install cocotb 1.8, pyuvm 2.9, cocotbext-axi into $python" >&2
        "$python" -m pip install -q --disable-pip-version-check \
            "cocotb>=1.8,<1.9" "pyuvm>=2.9,<3" "cocotbext-axi>=0.1.24"
    fi
    "$python" -c "import cocotb; assert cocotb.__version__.startswith('1.8'), cocotb.__version__"
fi

version=$(verilator --version | awk '{print $2}')
echo "install_rtl_tools: verilator $version ready" >&2
