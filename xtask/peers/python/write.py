"""Python write peer of `cargo xtask bench --only write` (see xtask/peers/README.md): writes
air-routes' Neptune CSV files through gremlinpython's own traversal API, as a user writes it,
and prints one JSON line. The venv's gremlinpython decides the route: 4.0.0b3 (peer `python`,
GremlinLang over HTTP) or 3.7.3 (peer `python3`, bytecode over WebSocket, GraphBinary 1).

  write.py --url URL --nodes FILE --edges FILE --mode loop|batch [--sample 5000] [--batch 100]
           [--in-flight 4] [--edge-in-flight 1] [--max-secs S]

loop: one request per element, one at a time (merge_v / merge_e with on_create and on_match,
.iterate()), over the first --sample rows (vertices first, then edges), or fewer if --max-secs passes first
(`elements` says how many). batch: --batch merges
chained in one traversal per request, --in-flight requests at once for vertices and
--edge-in-flight for edges (threads sharing the driver's pool), over every row. Values are
typed as the CSV header says; ids are sent as the CSV's strings, as `graphbinary load` does."""

import argparse
import csv
import importlib.metadata
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from gremlin_python.driver.driver_remote_connection import DriverRemoteConnection
from gremlin_python.process.anonymous_traversal import traversal
from gremlin_python.process.traversal import Direction, Merge, T

TP3 = importlib.metadata.version("gremlinpython").startswith("3.")
NAME = "python3" if TP3 else "python"
TYPES = {"int": int, "long": int, "double": float, "float": float, "bool": lambda s: s.lower() == "true"}


def read_rows(path, edges):
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        r = csv.reader(f)
        hdr = next(r)
        for rec in r:
            sysc, props = {}, {}
            for h, cell in zip(hdr, rec):
                if h.startswith("~"):
                    sysc[h] = cell
                elif cell != "":
                    name, _, kind = h.partition(":")
                    props[name] = TYPES.get(kind.lower(), str)(cell)
            create = dict(props)
            if edges:
                search = {T.label: sysc["~label"], Direction.OUT: sysc["~from"], Direction.IN: sysc["~to"], T.id: sysc["~id"]}
            else:
                search = {T.id: sysc["~id"]}
                create[T.label] = sysc["~label"]
            rows.append((search, create, props))
    return rows


def send(g, rows, edges):
    t = g
    for search, create, match in rows:
        t = t.merge_e(search) if edges else t.merge_v(search)
        t = t.option(Merge.on_create, create).option(Merge.on_match, match)
    t.iterate()


def write(g, rows, edges, batch, in_flight):
    with ThreadPoolExecutor(in_flight) as ex:
        for f in [ex.submit(send, g, rows[i:i + batch], edges) for i in range(0, len(rows), batch)]:
            f.result()


def main():
    p = argparse.ArgumentParser()
    for a in ("--url", "--nodes", "--edges"):
        p.add_argument(a, required=True)
    p.add_argument("--mode", choices=["loop", "batch"], default="loop")
    p.add_argument("--sample", type=int, default=5000)
    p.add_argument("--batch", type=int, default=100)
    p.add_argument("--in-flight", type=int, default=4)
    p.add_argument("--edge-in-flight", type=int, default=1)
    p.add_argument("--max-secs", type=float, default=0)
    a = p.parse_args()
    vs, es = read_rows(a.nodes, False), read_rows(a.edges, True)
    pool = max(a.in_flight, a.edge_in_flight)
    if TP3:
        from gremlin_python.driver.serializer import GraphBinarySerializersV1
        conn = DriverRemoteConnection(a.url, "g", pool_size=pool, message_serializer=GraphBinarySerializersV1())
    else:
        conn = DriverRemoteConnection(a.url, "g", max_connections=pool)
    g = traversal().with_remote(conn)
    try:
        started = time.perf_counter()
        if a.mode == "loop":
            items = [(r, False) for r in vs] + [(r, True) for r in es]
            items = items[: a.sample]
            n = 0
            for r, edges in items:
                send(g, [r], edges)
                n += 1
                if a.max_secs and time.perf_counter() - started > a.max_secs:
                    break
        else:
            write(g, vs, False, a.batch, a.in_flight)
            write(g, es, True, a.batch, a.edge_in_flight)
            n = len(vs) + len(es)
        wall = time.perf_counter() - started
    finally:
        conn.close()
    print(json.dumps({"peer": NAME, "mode": a.mode, "elements": n, "wall_secs": wall, "per_sec": n / wall}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
