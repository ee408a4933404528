"""TinkerPop 3 Python peer for `cargo xtask bench --only tp3`: gremlinpython 3.7.3 (GraphBinary 1
over WebSocket) submits a gremlin-groovy script, drains every result and prints one JSON
measurement line. Command line and output: see xtask/peers/README.md (no --compression); the
harness (arguments, timing, JSON) is `../../python/harness.py`, shared with the 4.0 peer."""

import os
import sys

from gremlin_python.driver.client import Client
from gremlin_python.driver.serializer import GraphBinarySerializersV1

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from harness import run  # noqa: E402 - found through the path set just above


def make_client(a, pool):
    return Client(a.url, "g", pool_size=pool, message_serializer=GraphBinarySerializersV1())


if __name__ == "__main__":
    sys.exit(run("python3", __doc__, "ws://127.0.0.1:8186/gremlin", ["none"], make_client))
