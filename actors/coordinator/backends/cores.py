"""How many physical cores the machine has: llama.cpp's default thread count.

llama-cpp-python defaults to half the logical CPUs (one thread on a two-core machine); one
thread per physical core is what llama.cpp itself recommends.
"""

from __future__ import annotations

import os
import subprocess
import sys


def physical_cores() -> int:
    try:
        if sys.platform.startswith("linux"):
            return _linux() or _logical()
        if sys.platform == "darwin":
            out = subprocess.run(["sysctl", "-n", "hw.physicalcpu"], capture_output=True, text=True, timeout=2)
            return int(out.stdout.strip()) if out.returncode == 0 else _logical()
    except (OSError, ValueError, subprocess.SubprocessError):
        pass
    return _logical()


def _logical() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def _linux() -> int:
    """Distinct (physical id, core id) pairs in /proc/cpuinfo, within our CPU affinity."""
    allowed = os.sched_getaffinity(0)
    cores, processor, physical = set(), None, "0"
    with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            key, value = key.strip(), value.strip()
            if key == "processor":
                processor = int(value)
            elif key == "physical id":
                physical = value
            elif key == "core id" and processor in allowed:
                cores.add((physical, value))
    return len(cores)
