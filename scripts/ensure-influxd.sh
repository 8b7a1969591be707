#!/usr/bin/env bash
# Print the path of an influxd 2.x binary: the one on PATH, or one built once from the Go module proxy and cached.
set -euo pipefail
VERSION="${INFLUXD_VERSION:-v2.7.12}"
CACHE="${MONITOR_CACHE_DIR:-$HOME/.cache/snmp-monitor}"
BIN="$CACHE/influxd-$VERSION/influxd"

if command -v influxd >/dev/null 2>&1 && influxd version 2>/dev/null | grep -q 'InfluxDB v2'; then
  command -v influxd; exit 0
fi
if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi

# One build at a time: a second caller (another test run, the demo) waits for the first and reuses its binary.
mkdir -p "$CACHE"
exec 9>"$CACHE/.build-$VERSION.lock"
flock 9
if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi

echo "building influxd $VERSION from the Go module proxy (first time only, about 3-5 minutes)..." >&2
export GOFLAGS=-mod=mod GOPATH="${GOPATH:-$HOME/go}"
work="$CACHE/build-$VERSION"
rm -rf "$work"; mkdir -p "$work" "$CACHE/tools"
src=$(go mod download -json "github.com/influxdata/influxdb/v2@$VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
cp -r "$src/." "$work/src"; chmod -R u+w "$work/src"
GOBIN="$CACHE/tools" go install github.com/influxdata/pkg-config@v0.2.14
cat > "$CACHE/tools/rustc-wrapper" <<'W'
#!/bin/sh
# flux's Rust code denies warnings that newer rustc raises: cap them.
exec "$@" --cap-lints=warn
W
chmod +x "$CACHE/tools/rustc-wrapper"
(
  cd "$work/src"
  PATH="$CACHE/tools:$PATH" PKG_CONFIG="$CACHE/tools/pkg-config" RUSTUP_TOOLCHAIN=stable \
    RUSTC_WRAPPER="$CACHE/tools/rustc-wrapper" go build -o "$work/influxd" ./cmd/influxd >&2
)
mkdir -p "$(dirname "$BIN")"; mv "$work/influxd" "$BIN"; rm -rf "$work"
echo "$BIN"
