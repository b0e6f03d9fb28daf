# Sourced by the scripts that need Python packages from PyPI: `venv NAME PACKAGE...` makes
# (once) a virtualenv at $target/NAME with those packages, pinned, and sets $venv to it.
# A marker file named after the package list skips the install when nothing changed.
# Needs $root (the repository) set; $target defaults to $CARGO_TARGET_DIR or $root/target.
target="${CARGO_TARGET_DIR:-$root/target}"

venv() {
  local name="$1"
  shift
  venv="$target/$name"
  local marker
  marker="$venv/.dudo-installed-$(printf '%s\n' "$@" | sha256sum | cut -c1-16)"
  # Tests run at once may each ask for the same environment: one makes it while the others
  # wait (a second pip install over files in use left a half-written module behind).
  mkdir -p "$target"
  exec {lock}>"$target/$name.lock"
  flock "$lock"
  if [ ! -f "$marker" ]; then
    python3 -m venv "$venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" >&2
    touch "$marker"
  fi
  flock -u "$lock"
  exec {lock}>&-
}
