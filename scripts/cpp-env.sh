#!/usr/bin/env bash
# Builds the C++ example bot (bot-sdk/examples/cpp, `dudobot-cpp`) and prints its path: the
# last and only line on standard output; everything else goes to standard error.
#
# It needs g++, pkg-config, protoc with grpc_cpp_plugin, and gRPC's and protobuf's C++
# libraries: Debian's libgrpc++-dev, libprotobuf-dev, protobuf-compiler and
# protobuf-compiler-grpc. When they are missing and this runs as root with apt-get, it
# installs them.
#
# The stubs are generated from proto/ into the target directory and compiled with the bot;
# a marker holding a checksum of the sources skips the build when nothing changed. Safe to
# run again, and from parallel callers.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
packages=(g++ pkg-config libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc)

have_cpp() {
  command -v g++ >/dev/null && command -v pkg-config >/dev/null && command -v protoc >/dev/null \
    && command -v grpc_cpp_plugin >/dev/null && pkg-config --exists grpc++ protobuf
}

if ! have_cpp; then
  # Tests run in parallel and apt-get takes one caller at a time: the others wait here, then
  # find everything installed.
  exec 8>"${TMPDIR:-/tmp}/dudo-cpp-env.lock"
  flock 8
  if ! have_cpp && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's gRPC and protobuf C++ packages for the C++ example bot" >&2
    install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >&2; }
    install "${packages[@]}" || { apt-get update -q >&2 && install "${packages[@]}"; }
  fi
  exec 8>&-
  if ! have_cpp; then
    echo "no C++ gRPC for the C++ example bot: it needs g++, pkg-config, protoc, grpc_cpp_plugin" \
      "and gRPC's C++ library (as root: apt-get install ${packages[*]})" >&2
    exit 1
  fi
fi

out="$target/cpp-bot"
binary="$out/dudobot-cpp"
example="$root/bot-sdk/examples/cpp"
mkdir -p "$out"
sum="$(cd "$root" && cat scripts/cpp-env.sh proto/dudo/v1/*.proto "$example"/*.cc | sha256sum | cut -c1-32)"
marker="$out/.built-$sum"
if [ ! -x "$binary" ] || [ ! -f "$marker" ]; then
  exec 9>"$out/.build.lock"
  flock 9
  if [ ! -x "$binary" ] || [ ! -f "$marker" ]; then
    echo "building the C++ example bot into $binary" >&2
    gen="$out/gen"
    rm -rf "$gen"
    mkdir -p "$gen"
    (cd "$root" && protoc -I proto --cpp_out="$gen" --grpc_out="$gen" \
      --plugin=protoc-gen-grpc="$(command -v grpc_cpp_plugin)" proto/dudo/v1/*.proto) >&2
    rm -f "$out"/.built-*
    # -O1: the bot waits on the network, and the generated code compiles twice as fast.
    # shellcheck disable=SC2046
    g++ -std=c++17 -O1 -Wall -Wextra -o "$binary.tmp" -I "$gen" "$example"/bot.cc "$gen"/dudo/v1/*.cc \
      $(pkg-config --cflags --libs grpc++ protobuf) >&2
    mv -f "$binary.tmp" "$binary"
    touch "$marker"
  fi
  exec 9>&-
fi
echo "$binary"
