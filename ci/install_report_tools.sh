#!/usr/bin/env bash
# Install what `nvdla-verif regress --html` and its report test need on a fresh Debian bookworm machine;
# safe to run again.
#   Debian: nodejs and npm when there is no node (the project's machine image ships Node 20 with npm);
#           chromium (headless, for the test that opens the HTML report)
#   npm:    allure 3 (ci/report/package.json) into ci/report/node_modules
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
    echo "install_report_tools: apt-get install ${missing[*]}" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -x ci/report/node_modules/.bin/allure ]; then
    echo "install_report_tools: npm install allure (ci/report/package.json)" >&2
    npm install --prefix ci/report --no-audit --no-fund --no-package-lock --loglevel=error >/dev/null
fi
echo "install_report_tools: allure $(ci/report/node_modules/.bin/allure --version 2>/dev/null), $(node --version)," \
     "$(chromium --version 2>/dev/null || echo 'no chromium')" >&2
