"""Whole-process peer of `cargo xtask bench --only process`: gremlinpython 4.0.0b3 deserializes
every result of a GraphBinary 4 response body read from a file, the way its driver reads an
HTTP response body (`GraphBinarySerializersV4.deserialize_response_stream`, which
`Connection._receive` iterates), and prints the number of results (bulks summed), as
`graphbinary decode --format count FILE` does.

    .bench-cache/python/bin/python xtask/peers/python/decode_file.py FILE
"""

import io
import sys

from gremlin_python.driver.serializer import GraphBinarySerializersV4
from gremlin_python.process.traversal import Traverser


def main():
    if len(sys.argv) != 2:
        print("usage: decode_file.py FILE", file=sys.stderr)
        return 64
    with open(sys.argv[1], "rb") as f:
        body = f.read()
    serializer = GraphBinarySerializersV4()
    count = 0
    # The driver hands each result to its result set as it is read; here each is dropped.
    for obj in serializer.deserialize_response_stream(io.BytesIO(body)):
        count += obj.bulk if isinstance(obj, Traverser) else 1
    print(count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
