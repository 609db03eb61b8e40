#!/usr/bin/env bash
# scripts/install-deps.sh — installs the Debian packages steptp needs to build, test and run.
# Idempotent: packages already present are skipped, so `make test` stays fast on a warm machine.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build clang llvm pkg-config
  nlohmann-json3-dev libcli11-dev libfmt-dev libginac-dev libcln-dev libtbb-dev
  libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev libcpp-httplib-dev libssl-dev
  libpcre2-dev
  python3-torch libopenblas0-pthread
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
