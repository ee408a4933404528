#!/usr/bin/env bash
# Installs and builds the peer clients for `cargo xtask bench` (see xtask/peers/README.md):
#   java    TinkerPop Java driver 4.0.0-beta.3      (Maven)
#   go      TinkerPop Go driver 4.0.0-beta.3        (Go modules)
#   python  gremlinpython 4.0.0b3                   (pip, in a venv)
#   raw     plain HTTP POST that decodes nothing    (Go, standard library only)
# Everything lands in <repo>/.bench-cache (gitignored). Idempotent: finished steps are skipped.
#
# Usage: xtask/peers/setup.sh [java] [go] [python] [raw]     (no argument: all of them)
#
# Every peer comes from its own package registry: gremlinpython from pip, the Java driver through
# Maven (the local repository first), gremlin-go through the Go module proxy. A peer whose package
# cannot be had is reported as unavailable (with the registry's answer) and the others still build;
# the exit status is non-zero only when nothing at all could be set up.
set -euo pipefail

TP_TAG=4.0.0-beta.3
PY_VERSION=4.0.0b3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="$repo/.bench-cache"
out="$cache/peers"

die() { echo "setup.sh: error: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "'$1' not found on PATH: $2"; }
step_start=0
step() { step_start=$(date +%s.%N); echo "setup.sh: $*" >&2; }
done_step() { awk -v a="$step_start" -v b="$(date +%s.%N)" -v m="$1" 'BEGIN { printf "setup.sh:   %s (%.1fs)\n", m, b - a }' >&2; }

want=("$@")
[ ${#want[@]} -eq 0 ] && want=(java go python raw)
for p in "${want[@]}"; do
  case "$p" in java|go|python|raw) ;; *) die "unknown peer '$p' (expected java, go, python, raw)";; esac
done
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
mkdir -p "$out" "$cache/src"

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
  built+=(python)
fi

# ---------------------------------------------------------------- raw
if has raw; then
  step "raw: building rawdrain (Go standard library only) into $out"
  (cd "$here/go" && go build -trimpath -o "$out/" ./cmd/rawdrain)
  built+=(raw)
  done_step "built"
fi

# ---------------------------------------------------------------- go
if has go; then
  step "go: building gopeer against gremlin-go $TP_TAG from the Go module proxy"
  if log=$(cd "$here/gremlin-go" && GOFLAGS=-mod=mod go build -trimpath -o "$out/" ./cmd/gopeer 2>&1); then
    built+=(go)
    done_step "built"
  else
    echo "$log" | tail -5 >&2
    unavailable+=("go: github.com/apache/tinkerpop/gremlin-go/v4@$TP_TAG could not be resolved through the Go module proxy")
    done_step "unavailable"
  fi
fi

# ---------------------------------------------------------------- java
if has java; then
  step "java: building the Java peer (gremlin-driver $TP_TAG resolved by Maven)"
  jdir="$here/java"
  if [ -f "$jdir/target/cp.txt" ] && [ -f "$jdir/target/classes/peers/Peer.class" ] \
     && [ -z "$(find "$jdir/pom.xml" "$jdir/src" -newer "$jdir/target/cp.txt" -type f | head -1)" ]; then
    built+=(java)
    done_step "up to date"
  elif log=$(cd "$jdir" && mvn -B -q -Dstyle.color=never package 2>&1); then
    built+=(java)
    done_step "built"
  else
    echo "$log" | grep -m3 -i "could not\|not found\|error" >&2 || true
    unavailable+=("java: org.apache.tinkerpop:gremlin-driver:$TP_TAG could not be resolved by Maven")
    done_step "unavailable"
  fi
fi

for u in "${unavailable[@]}"; do echo "setup.sh: unavailable: $u" >&2; done
echo "setup.sh: built: ${built[*]:-none}; run peers with $here/peer <java|go|python|raw> --url ... --query ..." >&2
[ ${#built[@]} -gt 0 ] || exit 1
