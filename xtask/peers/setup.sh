#!/usr/bin/env bash
# Installs and builds the peer clients for `cargo xtask bench` (see xtask/peers/README.md):
#   java    TinkerPop Java driver 4.0.0-beta.3      (Maven)
#   go      TinkerPop Go driver 4.0.0-beta.3        (Go modules)
#   python  gremlinpython 4.0.0b3                   (pip, in a venv)
#   raw     plain HTTP POST that decodes nothing    (Go, standard library only)
# and, for the TinkerPop 3 part of the bench (`tp3` = all four; not built by default):
#   java3           TinkerPop Java driver 3.7.3     (Maven Central)
#   go3             TinkerPop Go driver v3.7.3      (the Go module proxy)
#   python3         gremlinpython 3.7.3             (PyPI, in a venv)
#   gremlin-client  gremlin-client 0.8              (the Rust package registry; cargo)
# Everything lands in <repo>/.bench-cache (gitignored). Idempotent: finished steps are skipped.
#
# Usage: xtask/peers/setup.sh [java] [go] [python] [raw] [tp3 | java3 go3 python3 gremlin-client]
#        (no argument: java go python raw)
#
# Where each peer comes from: gremlinpython from pip; the Java driver through Maven, with
# TinkerPop 4.0.0-beta.3's own artifacts from the Maven repository in ../shared/maven (Maven
# Central serves TinkerPop only up to 3.x) and their third-party dependencies from Maven Central;
# gremlin-go from its v4.0.0-beta.3 module source in ../shared/gremlin-go-4.0.0-beta.3 (the Go
# module proxy refuses the v4 module), its own dependencies from the Go module proxy.
# GRAPHBINARY_SHARED moves ../shared. A peer that cannot be had is reported as unavailable (with
# the tool's answer) and the others still build; the exit status is non-zero only when nothing at
# all could be set up.
set -euo pipefail

TP_TAG=4.0.0-beta.3
PY_VERSION=4.0.0b3
TP3_VERSION=3.7.3
GREMLIN_CLIENT_VERSION=0.8
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="$repo/.bench-cache"
out="$cache/peers"

die() { echo "setup.sh: error: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "'$1' not found on PATH: $2"; }
step_start=0
step() { step_start=$(date +%s.%N); echo "setup.sh: $*" >&2; }
done_step() { awk -v a="$step_start" -v b="$(date +%s.%N)" -v m="$1" 'BEGIN { printf "setup.sh:   %s (%.1fs)\n", m, b - a }' >&2; }

want=()
for p in "$@"; do
  case "$p" in
    java|go|python|raw|java3|go3|python3|gremlin-client) want+=("$p") ;;
    tp3) want+=(java3 go3 python3 gremlin-client) ;;
    *) die "unknown peer '$p' (expected java, go, python, raw, java3, go3, python3, gremlin-client or tp3)";;
  esac
done
[ ${#want[@]} -eq 0 ] && want=(java go python raw)
has() { local x; for x in "${want[@]}"; do [ "$x" = "$1" ] && return 0; done; return 1; }

if has java; then
  need java "a JDK 17+ is required for the Java peer"
  need javac "a JDK 17+ (not only a JRE) is required for the Java peer"
  need mvn "Maven 3 is required for the Java peer"
  jv=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  [ "${jv%%.*}" -ge 17 ] 2>/dev/null || die "the Java peer needs Java 17+, found '${jv:-unknown}'"
fi
if has go || has raw; then need go "Go 1.25+ is required for the Go peer and the raw drain"; fi
if has python; then need python3 "Python 3.9+ is required for the Python peer"; fi
if has java3; then
  need java "a JDK 17+ is required for the Java 3.7.3 peer"
  need javac "a JDK 17+ (not only a JRE) is required for the Java 3.7.3 peer"
  need mvn "Maven 3 is required for the Java 3.7.3 peer"
fi
if has go3; then need go "Go 1.25+ is required for the gremlin-go v3.7.3 peer"; fi
if has python3; then need python3 "Python 3.9+ is required for the gremlinpython 3.7.3 peer"; fi
if has gremlin-client; then need cargo "cargo is required for the gremlin-client peer"; fi
mkdir -p "$out" "$cache/src"
shared="${GRAPHBINARY_SHARED:-$repo/../shared}"
shared="$(cd "$shared" 2>/dev/null && pwd || echo "$shared")"
# Written by each step that builds a peer, read by `cargo xtask bench` for its report.
origin_file="$out/origins.txt"
touch "$origin_file"
origin() { grep -v "^$1 " "$origin_file" > "$origin_file.tmp" || true; echo "$1 $2" >> "$origin_file.tmp"; mv "$origin_file.tmp" "$origin_file"; }

unavailable=()
built=()
ok() { origin "$1" "$2"; built+=("$1"); done_step "$3"; }
missed() { unavailable+=("$1"); done_step "unavailable"; }

# python_peer NAME VERSION: gremlinpython==VERSION in the venv .bench-cache/NAME, for
# python/peer.py (which picks its client by the gremlinpython it finds).
python_peer() {
  local name=$1 version=$2 venv="$cache/$1" from="gremlinpython $2 from PyPI (pip, in a venv)"
  step "$name: gremlinpython==$version in $venv"
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c \
      "import importlib.metadata as m, sys; sys.exit(m.version('gremlinpython') != '$version')" 2>/dev/null; then
    ok "$name" "$from" "already installed"
  elif python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check "gremlinpython==$version"; then
    ok "$name" "$from" "installed"
  else
    missed "$name: pip could not install gremlinpython==$version"
  fi
}

# go_peer NAME BINARY AGAINST ORIGIN [GO BUILD FLAG...]: cmd/gopeer of gremlin-go/ built into
# .bench-cache/peers/BINARY with the flags that pick its driver generation.
go_peer() {
  local name=$1 bin=$2 against=$3 from=$4 log; shift 4
  # cmd/gowrite (the write bench's peer, gowrite / gowrite3) is built beside it, same flags.
  if log=$(cd "$here/gremlin-go" && go build "$@" -trimpath -o "$out/$bin" ./cmd/gopeer 2>&1 \
      && go build "$@" -trimpath -o "$out/${bin/gopeer/gowrite}" ./cmd/gowrite 2>&1); then
    ok "$name" "$from" "built"
  else
    echo "$log" | tail -5 >&2
    missed "$name: $bin did not build against $against"
  fi
}

# java_peer NAME GENERATION VERSION ORIGIN WHERE [MAVEN FLAG...]: the Maven project java/ with
# profile GENERATION (tp4 or tp3) into java/target/GENERATION/, unless that is up to date.
java_peer() {
  local name=$1 gen=$2 version=$3 from=$4 where=$5 jdir="$here/java" log; shift 5
  local tdir="$jdir/target/$gen"
  if [ -f "$tdir/cp.txt" ] && [ -f "$tdir/classes/peers/Peer.class" ] \
     && [ -z "$(find "$jdir/pom.xml" "$jdir/src/main" "$jdir/src/$gen" -newer "$tdir/cp.txt" -type f | head -1)" ]; then
    ok "$name" "$from" "up to date"
  elif log=$(cd "$jdir" && mvn -B -q -Dstyle.color=never -P"$gen" "$@" package 2>&1); then
    ok "$name" "$from" "built"
  else
    echo "$log" | grep -m3 -i "could not\|not found\|error" >&2 || true
    missed "$name: org.apache.tinkerpop:gremlin-driver:$version could not be resolved by Maven$where"
  fi
}

# ---------------------------------------------------------------- python
if has python; then python_peer python "$PY_VERSION"; fi

# ---------------------------------------------------------------- raw
if has raw; then
  step "raw: building rawdrain (Go standard library only) into $out"
  (cd "$here/go" && go build -trimpath -o "$out/" ./cmd/rawdrain)
  ok raw "Go standard library only" "built"
fi

# ---------------------------------------------------------------- go
if has go; then
  gomod_src="$shared/gremlin-go-$TP_TAG"
  step "go: building gopeer against the gremlin-go $TP_TAG source in $gomod_src"
  if [ ! -f "$gomod_src/go.mod" ]; then
    missed "go: no gremlin-go $TP_TAG module source at $gomod_src (the Go module proxy refuses the v4 module; put ../shared beside the repository or set GRAPHBINARY_SHARED)"
  else
    # A copy of the peer's go.mod whose replace directive names the shared source by its
    # absolute path (the committed go.mod's relative one assumes ../shared beside the repo).
    modfile="$cache/gopeer.mod"
    cp "$here/gremlin-go/go.mod" "$modfile"
    cp "$here/gremlin-go/go.sum" "$cache/gopeer.sum"
    (cd "$here/gremlin-go" && go mod edit -modfile="$modfile" \
        -replace="github.com/apache/tinkerpop/gremlin-go/v4=$gomod_src")
    go_peer go gopeer "$gomod_src" \
      "gremlin-go v$TP_TAG built from its module source in ../shared (dependencies from the Go module proxy)" \
      -mod=mod -modfile="$modfile"
  fi
fi

# ---------------------------------------------------------------- java
if has java; then
  step "java: building the Java peer (gremlin-driver $TP_TAG from $shared/maven, the rest from Maven Central)"
  repo_arg=()
  [ -d "$shared/maven/org/apache/tinkerpop" ] && repo_arg=("-Dtinkerpop.repo.url=file://$shared/maven")
  java_peer java tp4 "$TP_TAG" \
    "gremlin-driver $TP_TAG from the Maven repository in ../shared/maven (third-party jars from Maven Central)" \
    " (looked in $shared/maven and the remote repositories)" "${repo_arg[@]}"
fi

# ---------------------------------------------------------------- TinkerPop 3 peers
tp3="$here/tp3"
if has python3; then python_peer python3 "$TP3_VERSION"; fi
if has go3; then
  step "go3: building gopeer3 against gremlin-go v$TP3_VERSION (Go module proxy) into $out"
  go_peer go3 gopeer3 "gremlin-go v$TP3_VERSION" \
    "gremlin-go v$TP3_VERSION from the Go module proxy (go build, checksums in xtask/peers/gremlin-go/go3.sum)" \
    -modfile=go3.mod -tags tp3
fi
if has java3; then
  step "java3: building the Java 3.7.3 peer (gremlin-driver $TP3_VERSION from Maven Central)"
  java_peer java3 tp3 "$TP3_VERSION" "gremlin-driver $TP3_VERSION from Maven Central (Maven)" ""
fi
if has gremlin-client; then
  step "gremlin-client: building the gremlin-client $GREMLIN_CLIENT_VERSION peer (the Rust package registry) into $out"
  if log=$(CARGO_TARGET_DIR="$cache/gremlin-client-target" cargo build -q --release \
        --manifest-path "$tp3/gremlin-client/Cargo.toml" 2>&1); then
    cp "$cache/gremlin-client-target/release/peer-gremlin-client" "$out/"
    v=$(sed -n '/^name = "gremlin-client"/{n;s/^version = "\(.*\)"/\1/p}' "$tp3/gremlin-client/Cargo.lock" 2>/dev/null || true)
    ok gremlin-client "gremlin-client ${v:-$GREMLIN_CLIENT_VERSION} from the Rust package registry (cargo, GraphSON 3, its tokio client)" "built"
  else
    echo "$log" | tail -5 >&2
    missed "gremlin-client: the gremlin-client $GREMLIN_CLIENT_VERSION peer did not build"
  fi
fi

for u in "${unavailable[@]}"; do echo "setup.sh: unavailable: $u" >&2; done
echo "setup.sh: built: ${built[*]:-none}; run peers with $here/peer <java|go|python|raw> --url ... --query ..." >&2
[ ${#built[@]} -gt 0 ] || exit 1
