#!/usr/bin/env bash
# Validates the Kubernetes manifests in deploy/kubernetes against Kubernetes' own schemas
# (kubernetes-validate from PyPI, in a virtualenv under the target directory, its schemas
# bundled: no cluster and no network needed once installed). CI runs it. Safe to run again.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
venv="$target/k8s-venv"
version="1.37.0"
marker="$venv/.dudo-installed-kubernetes-validate-$version"
if [ ! -f "$marker" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "kubernetes-validate==$version" >&2
  touch "$marker"
fi
# Every resource strictly (no field the schema does not know), for the Kubernetes version
# the manifests are written for.
"$venv/bin/kubernetes-validate" --strict --kubernetes-version 1.33 "$root"/deploy/kubernetes/*.yaml
