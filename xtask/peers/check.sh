#!/usr/bin/env bash
# Smoke check of the peers built by setup.sh against a running Gremlin Server with the Modern
# graph: each peer runs `g.V()` (6 vertices) and `g.V().repeat(both()).times(8)` (5,910
# results) in latency mode and g.V() in throughput mode; the JSON lines must parse and carry
# the expected counts. Usage: xtask/peers/check.sh [URL] [peer...]   (default: all four peers)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
url="${1:-http://127.0.0.1:8182/gremlin}"
[ $# -gt 0 ] && shift
peers=("$@")
[ ${#peers[@]} -eq 0 ] && peers=(raw go java python)
pass=0 fail=0
expect() { # peer, json line, mode, expected results (or "bytes" for the raw drain)
  python3 - "$@" <<'PY'
import json, sys
peer, line, mode, want = sys.argv[1:5]
d = json.loads(line)
assert d["peer"] == peer and d["mode"] == mode, d
assert d["cpu_secs"] >= 0, d
if mode == "latency":
    assert len(d["runs"]) == 2 and all(t > 0 for t in d["runs"]), d
else:
    assert d["requests"] == 20 and d["wall_secs"] > 0 and d["req_per_sec"] > 0, d
if peer == "raw":
    assert d["results"] is None and d["bytes"] > 0, d
else:
    assert d["results"] == int(want), d
PY
}
run() { # peer, query, mode, expected
  local line
  if line=$("$here/peer" "$1" --url "$url" --query "$2" --mode "$3" --runs 2 --concurrency 4 --requests 20) \
     && expect "$1" "$line" "$3" "$4"; then
    echo "ok   $1 $3 $2"; pass=$((pass + 1))
  else
    echo "FAIL $1 $3 $2: ${line:-no output}"; fail=$((fail + 1))
  fi
}
for p in "${peers[@]}"; do
  run "$p" "g.V()" latency 6
  run "$p" "g.V().repeat(both()).times(8)" latency 5910
  run "$p" "g.V()" throughput 6
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
