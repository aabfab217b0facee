"""`benchmarks.cpu`: the machine's CPU shares over a benchmark step, from `/proc/stat`."""

from benchmarks.cpu import cpu_shares, cpu_times

STAT = "cpu  100 5 50 800 10 3 2 30 0 0\ncpu0 50 2 25 400 5 1 1 15 0 0\nintr 1 2 3\n"


def test_the_all_cpu_line_is_read(tmp_path):
    stat = tmp_path / "stat"
    stat.write_text(STAT)
    times = cpu_times(stat)
    assert times == {
        "user": 100, "nice": 5, "system": 50, "idle": 800,
        "iowait": 10, "irq": 3, "softirq": 2, "steal": 30,
    }  # fmt: skip


def test_no_proc_stat_gives_none(tmp_path):
    assert cpu_times(tmp_path / "missing") is None
    (tmp_path / "other").write_text("intr 1 2 3\n")
    assert cpu_times(tmp_path / "other") is None
    assert cpu_shares(None, {"user": 1}) is None


def test_shares_are_of_all_the_time_that_passed():
    names = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
    before = dict.fromkeys(names, 0)
    after = {**before, "user": 50, "system": 10, "idle": 120, "iowait": 10, "steal": 10}
    assert cpu_shares(before, after) == {"busy": 0.3, "steal": 0.05}  # 60 and 10 of 200 ticks
    assert cpu_shares(after, after) is None  # no time passed
