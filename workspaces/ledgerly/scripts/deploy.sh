#!/usr/bin/env bash
# Build Ledgerly and roll it out to the app hosts of one environment.
#
# usage: scripts/deploy.sh <staging|production> [--version X.Y.Z]
set -euo pipefail

ENV="${1:-}"
shift || true
VERSION=""

while [[ $# -gt 0 ]]; do
  case "$1" in
    --version) VERSION="$2"; shift 2 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done

case "$ENV" in
  staging)    HOSTS="app-staging-1.ledgerly.internal" ;;
  production) HOSTS="app-1.ledgerly.internal app-2.ledgerly.internal" ;;
  *) echo "usage: $0 <staging|production> [--version X.Y.Z]" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/.."

if [[ -z "$VERSION" ]]; then
  echo "==> running tests"
  python -m pytest -q tests/
  echo "==> building wheel"
  python -m pip wheel --no-deps -w dist/ .
  WHEEL="$(ls -t dist/ledgerly-*.whl | head -n 1)"
else
  WHEEL="dist/ledgerly-${VERSION}-py3-none-any.whl"
fi

for host in $HOSTS; do
  echo "==> $host: installing $(basename "$WHEEL")"
  scp -q "$WHEEL" "deploy@${host}:/tmp/"
  ssh "deploy@${host}" \
    "sudo /opt/ledgerly/bin/pip install --force-reinstall /tmp/$(basename "$WHEEL") \
     && sudo systemctl restart ledgerly"
done

echo "==> done: $ENV now running $(basename "$WHEEL")"
