#!/usr/bin/env bash
# scripts/install-deps.sh — installs the Debian packages steptp needs to build, test and run.
# Idempotent: packages already present are skipped, so `make test` stays fast on a warm machine.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build clang llvm pkg-config
  nlohmann-json3-dev libcli11-dev libfmt-dev libginac-dev libcln-dev libtbb-dev
  libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev libcpp-httplib-dev libssl-dev
  libpcre2-dev libicu-dev clang-format-14 clang-tidy-14
  python3-torch libopenblas0-pthread
  python3-dev python3-venv curl
)

# Torch resolves libblas.so.3 through Debian's alternatives: make sure it is OpenBLAS (the
# reference BLAS is ~30x slower), and say when OpenBLAS misdetects the CPU. Its DYNAMIC_ARCH
# build falls back to "Prescott" (SSE3) kernels on VMs that hide the CPU model, ~4x slower than
# the AVX-512 kernels; python/torch_baseline.py then sets OPENBLAS_CORETYPE itself.
check_blas() {
  local arch openblas
  arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
  openblas=/usr/lib/$arch/openblas-pthread/libblas.so.3
  if [[ -e $openblas ]] && command -v update-alternatives >/dev/null; then
    local current
    current=$(update-alternatives --query "libblas.so.3-$arch" 2>/dev/null | awk '/^Value:/ {print $2}')
    if [[ -n $current && $current != "$openblas" ]]; then
      echo "install-deps: libblas.so.3 is $current; selecting OpenBLAS"
      $SUDO update-alternatives --set "libblas.so.3-$arch" "$openblas" || true
      $SUDO update-alternatives --set "liblapack.so.3-$arch" \
        "/usr/lib/$arch/openblas-pthread/liblapack.so.3" || true
    fi
  fi
  if [[ -x /usr/bin/python3 ]]; then
    local core
    core=$(env -u OPENBLAS_CORETYPE /usr/bin/python3 -c "import ctypes; l = ctypes.CDLL('libblas.so.3'); \
f = l.openblas_get_corename; f.restype = ctypes.c_char_p; print(f().decode())" 2>/dev/null || true)
    if [[ $core == Prescott || $core == Core2 || $core == Nehalem || $core == Katmai ]] && \
       grep -qw avx2 /proc/cpuinfo; then
      echo "install-deps: OpenBLAS picks '$core' kernels on this CPU (its model is hidden);" \
           "python/torch_baseline.py sets OPENBLAS_CORETYPE; export OPENBLAS_CORETYPE=SkylakeX" \
           "(AVX-512) or Haswell (AVX2) for other torch runs"
    fi
  fi
}

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
  check_blas
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
check_blas
