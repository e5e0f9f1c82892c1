#!/usr/bin/env bash
# Install what the cluster tests (suites/cluster) need on a fresh Debian bookworm machine; safe to run again:
#   Debian: slurm-wlm (slurmctld, slurmd and the client commands) and munge (Slurm's authentication).
# The tests start their own daemons, with their own slurm.conf and key, in a temporary folder; nothing is
# started or configured system-wide here.
set -euo pipefail

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for pkg in slurm-wlm munge; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "install_cluster_tools: apt-get install ${missing[*]}" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "install_cluster_tools: $(/usr/sbin/slurmctld -V), munge $(dpkg-query -W -f='${Version}' munge)" >&2
