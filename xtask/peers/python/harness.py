"""The measurement harness of the Python peer (`peer.py`, under gremlinpython 4 or 3.7): the
command line, the latency and throughput loops with their timing and CPU time, and the one JSON
line, as xtask/peers/README.md describes them. `peer.py` keeps only what a driver version needs:
how to make the client. Pure standard library, so that it runs under either peer's venv."""

import argparse
import json
import resource
import sys
import threading
import time


def cpu_seconds():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def parse_args(description, default_url, compressions):
    p = argparse.ArgumentParser(prog="peer.py", description=description)
    p.add_argument("--url", default=default_url)
    p.add_argument("--query", default="g.V()")
    p.add_argument("--mode", choices=["latency", "throughput"], default="latency")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--requests", type=int, default=1000)
    p.add_argument("--warmup", type=int, default=-1,
                   help="unmeasured requests first (default: 1 for latency, concurrency for throughput)")
    p.add_argument("--compression", choices=compressions, default="none")
    a = p.parse_args()
    if min(a.runs, a.concurrency, a.requests) < 1:
        p.error("--runs, --concurrency and --requests must be >= 1")
    if a.warmup < 0:
        a.warmup = 1 if a.mode == "latency" else a.concurrency
    return a


class Inconsistent(Exception):
    pass


def one(client, query):
    """One request, every result drained; returns the result count."""
    return len(client.submit_async(query).result().all().result())


def fan_out(client, query, n):
    """n requests with at most the pool size in flight: submit_async blocks while every pooled
    connection is busy, and each connection returns to the pool when its response is read."""
    lock = threading.Lock()
    counts = []
    errors = []
    remaining = [n]
    all_done = threading.Event()

    def finished(count=None, err=None):
        with lock:
            if err is not None:
                errors.append(err)
            else:
                counts.append(count)
            remaining[0] -= 1
            if remaining[0] == 0:
                all_done.set()

    def on_results(f):
        try:
            finished(count=len(f.result()))
        except Exception as e:  # noqa: BLE001 - reported below
            finished(err=e)

    def on_resultset(f):
        try:
            f.result().all().add_done_callback(on_results)
        except Exception as e:  # noqa: BLE001
            finished(err=e)

    for _ in range(n):
        client.submit_async(query).add_done_callback(on_resultset)
    all_done.wait()
    if errors:
        raise errors[0]
    if len(set(counts)) != 1:
        raise Inconsistent("inconsistent result counts: %s" % sorted(set(counts)))
    return counts[0]


def run(peer, description, default_url, compressions, make_client):
    """Parses the command line, makes the client with `make_client(args, pool_size)`, measures,
    prints the JSON line of `peer`; returns the exit status."""
    a = parse_args(description, default_url, compressions)
    pool = a.concurrency if a.mode == "throughput" else 1
    client = make_client(a, pool)
    try:
        line = {"peer": peer, "mode": a.mode, "query": a.query, "compression": a.compression}
        if a.mode == "latency":
            count = None
            for _ in range(a.warmup):
                count = one(client, a.query)
            runs = []
            cpu0 = cpu_seconds()
            for i in range(a.runs):
                t0 = time.perf_counter()
                n = one(client, a.query)
                runs.append(time.perf_counter() - t0)
                if count is not None and n != count:
                    raise Inconsistent("run %d returned %d results, earlier %d" % (i + 1, n, count))
                count = n
            line.update(runs=runs, results=count, bytes=None, cpu_secs=cpu_seconds() - cpu0)
        else:
            if a.warmup > 0:
                fan_out(client, a.query, a.warmup)
            cpu0 = cpu_seconds()
            t0 = time.perf_counter()
            count = fan_out(client, a.query, a.requests)
            wall = time.perf_counter() - t0
            line.update(concurrency=a.concurrency, requests=a.requests, wall_secs=wall,
                        req_per_sec=a.requests / wall, results=count, bytes=None,
                        cpu_secs=cpu_seconds() - cpu0)
        print(json.dumps(line), flush=True)
    except Exception as e:  # noqa: BLE001 - one clear line, non-zero exit
        print("peer.py: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 1
    finally:
        client.close()
    return 0
