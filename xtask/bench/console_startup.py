#!/usr/bin/env python3
"""Times an interactive console in a pseudo-terminal (standard library only), for the console
part of `cargo xtask bench`: from the start of the process to its first prompt, then, sending
each --send line once the previous answer (or the prompt) is in, to the first result.

usage: console_startup.py --prompt TEXT --expect TEXT [--send LINE]... -- COMMAND ARGS...
TEXT may hold Python escapes (\\r, \\n, \\x1b), so that a command line stays printable.
Prints one JSON line: {"prompt": seconds, "first": seconds}; exits 1 (saying why) when a text
does not show within 120 s."""

import json
import os
import pty
import select
import signal
import sys
import time


def unescape(text):
    return text.encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1")


def main(argv):
    prompt, expect, sends = None, None, []
    i = 0
    while argv[i] != "--":
        if argv[i] == "--prompt":
            prompt = unescape(argv[i + 1])
        elif argv[i] == "--expect":
            expect = unescape(argv[i + 1])
        elif argv[i] == "--send":
            sends.append(argv[i + 1].encode())
        else:
            sys.exit(f"unknown argument {argv[i]!r}")
        i += 2
    cmd = argv[i + 1:]
    start = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    out = bytearray()

    def until(text, since):
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.01)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out.extend(chunk)
                at = out.find(text, since)
                if at >= 0:
                    return time.monotonic() - start, at + len(text)
        os.kill(pid, signal.SIGKILL)
        sys.exit(f"{text!r} did not show; the output ended with {bytes(out[-400:])!r}")

    first_prompt, seen = until(prompt, 0)
    result = None
    for n, line in enumerate(sends):
        os.write(fd, line + b"\r")
        last = n == len(sends) - 1
        result, seen = until(expect if last else prompt, seen)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    print(json.dumps({"prompt": first_prompt, "first": result}))


if __name__ == "__main__":
    main(sys.argv[1:])
