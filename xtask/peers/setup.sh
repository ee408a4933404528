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
# ---------------------------------------------------------------- python
if has python; then
  step "python: gremlinpython==$PY_VERSION in $cache/python"
  if [ -x "$cache/python/bin/python" ] && "$cache/python/bin/python" -c \
      "import importlib.metadata as m, sys; sys.exit(m.version('gremlinpython') != '$PY_VERSION')" 2>/dev/null; then
    done_step "already installed"
  else
    python3 -m venv "$cache/python"
    "$cache/python/bin/pip" install -q --disable-pip-version-check "gremlinpython==$PY_VERSION"
    done_step "installed"
  fi
  origin python "gremlinpython $PY_VERSION from PyPI (pip, in a venv)"
  built+=(python)
fi

# ---------------------------------------------------------------- raw
if has raw; then
  step "raw: building rawdrain (Go standard library only) into $out"
  (cd "$here/go" && go build -trimpath -o "$out/" ./cmd/rawdrain)
  origin raw "Go standard library only"
  built+=(raw)
  done_step "built"
fi

# ---------------------------------------------------------------- go
if has go; then
  gomod_src="$shared/gremlin-go-$TP_TAG"
  step "go: building gopeer against the gremlin-go $TP_TAG source in $gomod_src"
  if [ ! -f "$gomod_src/go.mod" ]; then
    unavailable+=("go: no gremlin-go $TP_TAG module source at $gomod_src (the Go module proxy refuses the v4 module; put ../shared beside the repository or set GRAPHBINARY_SHARED)")
    done_step "unavailable"
  else
    # A copy of the peer's go.mod whose replace directive names the shared source by its
    # absolute path (the committed go.mod's relative one assumes ../shared beside the repo).
    modfile="$cache/gopeer.mod"
    cp "$here/gremlin-go/go.mod" "$modfile"
    cp "$here/gremlin-go/go.sum" "$cache/gopeer.sum"
    (cd "$here/gremlin-go" && go mod edit -modfile="$modfile" \
        -replace="github.com/apache/tinkerpop/gremlin-go/v4=$gomod_src")
    if log=$(cd "$here/gremlin-go" && go build -mod=mod -modfile="$modfile" -trimpath -o "$out/" ./cmd/gopeer 2>&1); then
      origin go "gremlin-go v$TP_TAG built from its module source in ../shared (dependencies from the Go module proxy)"
      built+=(go)
      done_step "built"
    else
      echo "$log" | tail -5 >&2
      unavailable+=("go: gopeer did not build against $gomod_src")
      done_step "unavailable"
    fi
  fi
fi

# ---------------------------------------------------------------- java
if has java; then
  step "java: building the Java peer (gremlin-driver $TP_TAG from $shared/maven, the rest from Maven Central)"
  jdir="$here/java"
  repo_arg=()
  [ -d "$shared/maven/org/apache/tinkerpop" ] && repo_arg=("-Dtinkerpop.repo.url=file://$shared/maven")
  if [ -f "$jdir/target/cp.txt" ] && [ -f "$jdir/target/classes/peers/Peer.class" ] \
     && [ -z "$(find "$jdir/pom.xml" "$jdir/src" -newer "$jdir/target/cp.txt" -type f | head -1)" ]; then
    origin java "gremlin-driver $TP_TAG from the Maven repository in ../shared/maven (third-party jars from Maven Central)"
    built+=(java)
    done_step "up to date"
  elif log=$(cd "$jdir" && mvn -B -q -Dstyle.color=never "${repo_arg[@]}" package 2>&1); then
    origin java "gremlin-driver $TP_TAG from the Maven repository in ../shared/maven (third-party jars from Maven Central)"
    built+=(java)
    done_step "built"
  else
    echo "$log" | grep -m3 -i "could not\|not found\|error" >&2 || true
    unavailable+=("java: org.apache.tinkerpop:gremlin-driver:$TP_TAG could not be resolved by Maven (looked in $shared/maven and the remote repositories)")
    done_step "unavailable"
  fi
fi

# ---------------------------------------------------------------- TinkerPop 3 peers
tp3="$here/tp3"
if has python3; then
  step "python3: gremlinpython==$TP3_VERSION in $cache/python3"
  if [ -x "$cache/python3/bin/python" ] && "$cache/python3/bin/python" -c \
      "import importlib.metadata as m, sys; sys.exit(m.version('gremlinpython') != '$TP3_VERSION')" 2>/dev/null; then
    done_step "already installed"
    origin python3 "gremlinpython $TP3_VERSION from PyPI (pip, in a venv)"
    built+=(python3)
  elif python3 -m venv "$cache/python3" && "$cache/python3/bin/pip" install -q --disable-pip-version-check "gremlinpython==$TP3_VERSION"; then
    done_step "installed"
    origin python3 "gremlinpython $TP3_VERSION from PyPI (pip, in a venv)"
    built+=(python3)
  else
    unavailable+=("python3: pip could not install gremlinpython==$TP3_VERSION")
    done_step "unavailable"
  fi
fi
if has go3; then
  step "go3: building gopeer3 against gremlin-go v$TP3_VERSION (Go module proxy) into $out"
  if log=$(cd "$tp3/gremlin-go" && go build -trimpath -o "$out/" ./cmd/gopeer3 2>&1); then
    origin go3 "gremlin-go v$TP3_VERSION from the Go module proxy (go build, checksums in xtask/peers/tp3/gremlin-go/go.sum)"
    built+=(go3)
    done_step "built"
  else
    echo "$log" | tail -5 >&2
    unavailable+=("go3: gopeer3 did not build against gremlin-go v$TP3_VERSION")
    done_step "unavailable"
  fi
fi
if has java3; then
  step "java3: building the Java 3.7.3 peer (gremlin-driver $TP3_VERSION from Maven Central)"
  jdir="$tp3/java"
  if [ -f "$jdir/target/cp.txt" ] && [ -f "$jdir/target/classes/peers3/Peer3.class" ] \
     && [ -z "$(find "$jdir/pom.xml" "$jdir/src" -newer "$jdir/target/cp.txt" -type f | head -1)" ]; then
    origin java3 "gremlin-driver $TP3_VERSION from Maven Central (Maven)"
    built+=(java3)
    done_step "up to date"
  elif log=$(cd "$jdir" && mvn -B -q -Dstyle.color=never package 2>&1); then
    origin java3 "gremlin-driver $TP3_VERSION from Maven Central (Maven)"
    built+=(java3)
    done_step "built"
  else
    echo "$log" | grep -m3 -i "could not\|not found\|error" >&2 || true
    unavailable+=("java3: org.apache.tinkerpop:gremlin-driver:$TP3_VERSION could not be resolved by Maven")
    done_step "unavailable"
  fi
fi
if has gremlin-client; then
  step "gremlin-client: building the gremlin-client $GREMLIN_CLIENT_VERSION peer (the Rust package registry) into $out"
  if log=$(CARGO_TARGET_DIR="$cache/gremlin-client-target" cargo build -q --release \
        --manifest-path "$tp3/gremlin-client/Cargo.toml" 2>&1); then
    cp "$cache/gremlin-client-target/release/peer-gremlin-client" "$out/"
    v=$(sed -n '/^name = "gremlin-client"/{n;s/^version = "\(.*\)"/\1/p}' "$tp3/gremlin-client/Cargo.lock" 2>/dev/null || true)
    origin gremlin-client "gremlin-client ${v:-$GREMLIN_CLIENT_VERSION} from the Rust package registry (cargo, GraphSON 3, its tokio client)"
    built+=(gremlin-client)
    done_step "built"
  else
    echo "$log" | tail -5 >&2
    unavailable+=("gremlin-client: the gremlin-client $GREMLIN_CLIENT_VERSION peer did not build")
    done_step "unavailable"
  fi
fi

for u in "${unavailable[@]}"; do echo "setup.sh: unavailable: $u" >&2; done
echo "setup.sh: built: ${built[*]:-none}; run peers with $here/peer <java|go|python|raw> --url ... --query ..." >&2
[ ${#built[@]} -gt 0 ] || exit 1
