#!/usr/bin/env bash
# Installs the servers the distributed profile's tests run against, once, into a cache folder
# (kept between runs): the Apache Kafka broker's jars through Maven, FerretDB through the Go
# module proxy. Prints the cache folder. Pinned versions: change them here and in servers.ts.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE="${PAPERLINK_SERVERS_CACHE:-$HOME/.cache/paperlink-servers}"
KAFKA_VERSION=4.4.0
FERRETDB_VERSION=v1.24.2
mkdir -p "$CACHE"

kafka_dir="$CACHE/kafka-$KAFKA_VERSION"
if [ ! -f "$kafka_dir/.complete" ]; then
  echo "installing the Kafka $KAFKA_VERSION broker (Maven Central) into $kafka_dir" >&2
  rm -rf "$kafka_dir" && mkdir -p "$kafka_dir"
  mvn -q -B -f "$HERE/kafka-pom.xml" dependency:copy-dependencies -DoutputDirectory="$kafka_dir/libs" >&2
  touch "$kafka_dir/.complete"
fi

ferret_dir="$CACHE/ferretdb-$FERRETDB_VERSION"
if [ ! -x "$ferret_dir/ferretdb" ]; then
  echo "building FerretDB $FERRETDB_VERSION (Go module proxy) into $ferret_dir" >&2
  src="$(GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -d "$src" ] || { echo "go mod download gave no source folder for FerretDB $FERRETDB_VERSION" >&2; exit 1; }
  work="$(mktemp -d)"
  cp -r "$src/." "$work/" && chmod -R u+w "$work"
  # The module zip leaves out the version file its build embeds (its own task writes it from git).
  echo "$FERRETDB_VERSION" > "$work/build/version/version.txt"
  mkdir -p "$ferret_dir"
  (cd "$work" && go build -o "$ferret_dir/ferretdb.tmp" ./cmd/ferretdb) >&2
  mv "$ferret_dir/ferretdb.tmp" "$ferret_dir/ferretdb"
  rm -rf "$work"
fi
echo "$CACHE"
