"""Python peer for `cargo xtask bench`: gremlinpython 4.0.0b3 (GraphBinary 4 over HTTP,
bulkResults off) submits a gremlin-lang script, drains every result and prints one JSON
measurement line. Command line and output: see xtask/peers/README.md; the harness (arguments,
timing, JSON) is `harness.py`, shared with the TinkerPop 3 peer."""

import sys

from gremlin_python.driver.client import Client

from harness import run


def make_client(a, pool):
    return Client(a.url, "g", max_connections=pool, bulk_results=False, compression=a.compression)


if __name__ == "__main__":
    sys.exit(run("python", __doc__, "http://127.0.0.1:8182/gremlin", ["none", "deflate"], make_client))
