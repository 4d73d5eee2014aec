"""Run a command (or a snippet) and print the peak memory, in MiB, of what it ran.

    python -m tests.adversarial.round3.rss_probe -- COMMAND …   the command's peak RSS
    python -m tests.adversarial.round3.rss_probe --python CODE  this process's growth

A fresh process, so no earlier test's peak hides the one measured.
"""

from __future__ import annotations

import asyncio
import resource
import subprocess
import sys


def main() -> None:
    if sys.argv[1] == "--python":
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        exec(compile(sys.argv[2], "<probe>", "exec"), {"asyncio": asyncio})
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(f"RSS_MIB {(after - before) / 1024:.1f}")
        return
    done = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL, capture_output=True, text=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    sys.stderr.write(done.stderr)
    print(f"RSS_MIB {peak / 1024:.1f} EXIT {done.returncode}")


if __name__ == "__main__":
    main()
