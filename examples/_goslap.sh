# Sourced by the examples: sets $goslap to $GOSLAP or a fresh build.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
goslap="${GOSLAP:-}"
if [ -z "$goslap" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$here" && go build -o "$tmp/goslap" .)
  goslap="$tmp/goslap"
fi
