"""Python peer for `cargo xtask bench`: gremlinpython submits a script, drains every result and
prints one JSON measurement line. One file for both driver generations, chosen by the
gremlinpython of the venv it runs in: 4.0.0b3 (peer `python`, a gremlin-lang script, GraphBinary
4 over HTTP, bulkResults off) or 3.7.3 (peer `python3`, a gremlin-groovy script, GraphBinary 1
over WebSocket, --compression deflate for permessage-deflate). Command line and output: see xtask/peers/README.md; the
harness (arguments, timing, JSON) is `harness.py`."""

import importlib.metadata
import os
import sys

from gremlin_python.driver.client import Client

from harness import run


def make_client4(a, pool):
    if os.environ.get("PEER_DEFAULTS") == "1":
        # The WAN bench's "defaults" rows: the driver's own pool (128) and compression (deflate).
        return Client(a.url, "g", bulk_results=False)
    return Client(a.url, "g", max_connections=pool, bulk_results=False, compression=a.compression)


def make_client3(a, pool):
    from gremlin_python.driver.serializer import GraphBinarySerializersV1

    if os.environ.get("PEER_DEFAULTS") == "1":
        # The WAN bench's "defaults" rows: the driver's own pool and compression (off).
        return Client(a.url, "g", message_serializer=GraphBinarySerializersV1())
    return Client(
        a.url,
        "g",
        pool_size=pool,
        message_serializer=GraphBinarySerializersV1(),
        enable_compression=a.compression == "deflate",
    )


if __name__ == "__main__":
    if importlib.metadata.version("gremlinpython").startswith("3."):
        sys.exit(run("python3", __doc__, "ws://127.0.0.1:8186/gremlin", ["none", "deflate"], make_client3))
    sys.exit(run("python", __doc__, "http://127.0.0.1:8182/gremlin", ["none", "deflate"], make_client4))
