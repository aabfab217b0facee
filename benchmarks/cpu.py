"""The machine's CPU time while a benchmark step runs (Linux `/proc/stat`), so that a slow step
can be told from a slow moment of the machine.

`steal` is the time the hypervisor gave this virtual machine's CPUs to something else while
they had work to run; `busy` is the time they ran (user, system, interrupts). Both are shares
of all CPUs' time over the step (`cpus × wall time`).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["cpu_times", "cpu_shares"]

_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def cpu_times(stat: Path = Path("/proc/stat")) -> dict[str, int] | None:
    """The all-CPU time counters (clock ticks), or None where there is no `/proc/stat`."""
    try:
        first = stat.read_text().split("\n", 1)[0].split()
    except OSError:
        return None
    if not first or first[0] != "cpu":
        return None
    return dict(zip(_FIELDS, (int(value) for value in first[1:]), strict=False))


def cpu_shares(
    before: dict[str, int] | None, after: dict[str, int] | None
) -> dict[str, float] | None:
    """`busy` and `steal` shares of the CPU time between two `cpu_times()` readings."""
    if before is None or after is None:
        return None
    delta = {name: after.get(name, 0) - before.get(name, 0) for name in _FIELDS}
    total = sum(delta.values())
    if total <= 0:
        return None
    busy = total - delta["idle"] - delta["iowait"] - delta["steal"]
    return {"busy": round(busy / total, 4), "steal": round(delta["steal"] / total, 4)}
