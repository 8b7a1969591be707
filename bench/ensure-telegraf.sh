#!/usr/bin/env bash
# Print the path of a Telegraf binary with only inputs.snmp, outputs.file and outputs.influxdb_v2 (scenario 8's anchor), built once from the Go module proxy and cached (bench only).
set -euo pipefail
VERSION="${TELEGRAF_VERSION:-v1.37.2}"
CACHE="${MONITOR_CACHE_DIR:-$HOME/.cache/snmp-monitor}"
BIN="$CACHE/telegraf-$VERSION-snmp-file-influxdb/telegraf"

if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi

echo "building telegraf $VERSION (inputs.snmp, outputs.file, outputs.influxdb_v2) from the Go module proxy (first time only)..." >&2
export GOFLAGS=-mod=mod GOPATH="${GOPATH:-$HOME/go}"
work="$CACHE/build-telegraf-$VERSION"
rm -rf "$work"; mkdir -p "$work"
src=$(go mod download -json "github.com/influxdata/telegraf@$VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
cp -r "$src/." "$work/src"; chmod -R u+w "$work/src"
(
  cd "$work/src"
  go build -tags custom,inputs.snmp,outputs.file,outputs.influxdb_v2 -o "$work/telegraf" ./cmd/telegraf >&2
)
mkdir -p "$(dirname "$BIN")"; mv "$work/telegraf" "$BIN"; rm -rf "$work"
echo "$BIN"
