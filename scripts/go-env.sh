#!/usr/bin/env bash
# Builds the Go example bot (bot-sdk/examples/go, `dudobot`) and prints its path: the last
# and only line on standard output; everything else goes to standard error.
#
# It needs Go, protoc and Debian's Go packages of grpc and protobuf (there is no Go module
# proxy here, so it builds in GOPATH mode against /usr/share/gocode). When they are missing
# and this runs as root with apt-get, it installs them. golang-github-golang-protobuf-1-5-dev
# matters: Debian's grpc-go 1.33 encodes messages through github.com/golang/protobuf, and
# its default 1.3 package fails on code from protoc-gen-go 1.28; the 1.5 package is a
# wrapper over google.golang.org/protobuf.
#
# The stubs (package dudov1) are generated from proto/ into a GOPATH under the target
# directory, with the example's sources beside them; a marker holding a checksum of both
# skips the build when nothing changed. Safe to run again, and from parallel callers.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
packages=(golang-go golang-google-grpc-dev golang-google-protobuf-dev
  golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc protobuf-compiler)

have_go() {
  command -v go >/dev/null && command -v protoc >/dev/null && command -v protoc-gen-go >/dev/null \
    && command -v protoc-gen-go-grpc >/dev/null && [ -d /usr/share/gocode/src/google.golang.org/grpc ] \
    && dpkg -s golang-github-golang-protobuf-1-5-dev >/dev/null 2>&1
}

if ! have_go; then
  # Tests run in parallel and apt-get takes one caller at a time: the others wait here, then
  # find everything installed.
  exec 8>"${TMPDIR:-/tmp}/dudo-go-env.lock"
  flock 8
  if ! have_go && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's Go, grpc-go and protobuf packages for the Go example bot" >&2
    install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2; }
    install "${packages[@]}" || { apt-get update -q >&2 && install "${packages[@]}"; }
    # Debian's grpc pulls in golang-github-golang-protobuf-1-3-dev first: the 1.5 package
    # replaces it.
    dpkg -s golang-github-golang-protobuf-1-5-dev >/dev/null 2>&1 \
      || install golang-github-golang-protobuf-1-5-dev \
      || { apt-get update -q >&2 && install golang-github-golang-protobuf-1-5-dev; }
  fi
  exec 8>&-
  if ! have_go; then
    echo "no Go toolchain for the Go example bot: it needs go, protoc, protoc-gen-go," \
      "protoc-gen-go-grpc and Debian's Go packages (as root: apt-get install ${packages[*]})" >&2
    exit 1
  fi
fi

gopath="$target/go-path"
out="$target/go-bot"
binary="$out/dudobot"
module=github.com/dudo-game/dudo/bot-sdk
example="$root/bot-sdk/examples/go"
mkdir -p "$out"
sum="$(cd "$root" && cat scripts/go-env.sh proto/dudo/v1/*.proto "$example"/*.go "$example"/go.mod | sha256sum | cut -c1-32)"
marker="$out/.built-$sum"
if [ ! -x "$binary" ] || [ ! -f "$marker" ]; then
  exec 9>"$out/.build.lock"
  flock 9
  if [ ! -x "$binary" ] || [ ! -f "$marker" ]; then
    echo "building the Go example bot into $binary" >&2
    rm -rf "$gopath/src/$module"
    stubs="$gopath/src/$module/go/dudov1"
    main="$gopath/src/$module/examples/go"
    mkdir -p "$stubs" "$main"
    # go_package in each .proto names github.com/dudo-game/dudo/bot-sdk/go/dudov1;
    # module= strips the module's path, so the files land in $gopath/src/$module/go/dudov1.
    (cd "$root" && protoc -I proto \
      --go_out="$gopath/src/$module/go" --go_opt="module=$module/go" \
      --go-grpc_out="$gopath/src/$module/go" --go-grpc_opt="module=$module/go" \
      proto/dudo/v1/*.proto) >&2
    cp "$example"/*.go "$main/"
    rm -f "$out"/.built-*
    (cd "$main" && GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOFLAGS= \
      GOCACHE="$target/go-cache" go build -o "$binary.tmp" "$module/examples/go") >&2
    mv -f "$binary.tmp" "$binary"
    touch "$marker"
  fi
  exec 9>&-
fi
echo "$binary"
