"""benchmarks.harder: a PAN-layout set whose truth points at the rewritten passages."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchmarks import harder
from detection.evaluation import Span, read_features
from detection.pan import output_name, read_pairs, read_text

REPO = Path(__file__).resolve().parents[2]
HOST = "今天天气很好。我们去公园散步。\n"
TAIL = "\n晚上大家一起吃饭。"
COPIED = (
    "研究人员发现，这种方法可以明显提高效率。同时，它的成本也比较低。\n"
    "实验结果表明，新方法更加稳定。"
)
SOURCE = "引言部分介绍了背景。" + COPIED + "最后是结论。"
ZH_KINDS = ["02-heavy", "03-punct", "04-split", "05-tradlight", "06-wrap"]


def _pan_set(root: Path, folder: str, host: str, copied: str, tail: str, source: str) -> Path:
    """A one-folder PAN set of two pairs, each copying ``copied`` from one source."""
    for sub in ("src", "susp", folder):
        (root / sub).mkdir(parents=True)
    lines = []
    for number in (1, 2):
        suspicious = f"suspicious-document0000{number}.txt"
        name = f"source-document0000{number}.txt"
        (root / "src" / name).write_text(source, encoding="utf-8")
        (root / "susp" / suspicious).write_text(host + copied + tail, encoding="utf-8")
        (root / folder / output_name(suspicious, name)).write_text(
            harder._truth_xml(
                suspicious,
                name,
                [
                    Span(
                        (suspicious, name),
                        len(host),
                        len(host) + len(copied),
                        source.index(copied),
                        source.index(copied) + len(copied),
                    )
                ],
            ),
            encoding="utf-8",
        )
        lines.append(f"{suspicious} {name}")
    (root / folder / "pairs").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def _rewritten(out: Path, kind: str) -> list[tuple[str, str, Span]]:
    """(suspicious text, source text, truth case) of every pair of ``kind``."""
    found = []
    for pair in read_pairs(out / kind / "pairs"):
        [case] = read_features(out / kind / output_name(*pair), pair)
        found.append((read_text(out / "susp" / pair[0]), read_text(out / "src" / pair[1]), case))
    return found


@pytest.fixture
def zh_set(tmp_path):
    data = _pan_set(tmp_path / "data", "02-none", HOST, COPIED, TAIL, SOURCE)
    assert harder.build(data, tmp_path / "out") == "zh"
    return tmp_path / "out"


def test_it_writes_the_pan_layout(zh_set):
    folders = sorted(p.name for p in zh_set.iterdir())
    assert folders == sorted([*ZH_KINDS, "pairs", "src", "susp"])
    every = read_pairs(zh_set / "pairs")
    assert len(every) == 2 * len(ZH_KINDS)
    assert sorted(p.name for p in (zh_set / "susp").iterdir()) == sorted(s for s, _ in every)
    assert (zh_set / "src" / "source-document00001.txt").read_text("utf-8") == SOURCE
    for kind in ZH_KINDS:
        pairs = read_pairs(zh_set / kind / "pairs")
        assert [s for s, _ in pairs] == [
            f"suspicious-document{kind[:2]}000.txt",
            f"suspicious-document{kind[:2]}001.txt",
        ]
        assert all((zh_set / kind / output_name(*pair)).is_file() for pair in pairs)


@pytest.mark.parametrize("kind", ZH_KINDS)
def test_the_truth_points_at_the_rewritten_passage(zh_set, kind):
    for text, source, case in _rewritten(zh_set, kind):
        assert text[: case.this_start] == HOST
        assert text[case.this_end :] == TAIL
        assert source[case.source_start : case.source_end] == COPIED


def test_deterministic_kinds_rewrite_as_described(zh_set):
    [(punct, _, case), _] = _rewritten(zh_set, "03-punct")
    assert punct[case.this_start : case.this_end] == COPIED.replace("。", "，").replace("\n", "")
    [(wrapped, _, case), _] = _rewritten(zh_set, "06-wrap")
    lines = wrapped[case.this_start : case.this_end].split("\n")
    assert "".join(lines) == COPIED.replace("\n", "")
    assert {len(line) for line in lines[:-1]} == {25}


def test_the_same_seed_gives_the_same_set_and_another_seed_another(tmp_path, zh_set):
    data = tmp_path / "data"
    harder.build(data, tmp_path / "again")
    harder.build(data, tmp_path / "other", seed=1)
    name = "suspicious-document02000.txt"
    same = (tmp_path / "again" / "susp" / name).read_text("utf-8")
    other = (tmp_path / "other" / "susp" / name).read_text("utf-8")
    assert same == (zh_set / "susp" / name).read_text("utf-8")
    assert other != same


def test_an_overlapping_case_is_left_out():
    cases = [Span(("s", "r"), 5, 10, 0, 5), Span(("s", "r"), 0, 6, 10, 16)]
    text, moved = harder.rewrite("abcdefghijkl", cases, lambda t, r: t.upper(), random.Random(0))
    assert text == "ABCDEFghijkl"
    assert moved == [Span(("s", "r"), 0, 6, 10, 16)]


def test_a_set_without_a_verbatim_folder_is_refused(tmp_path):
    with pytest.raises(harder.DetectionError, match="02-none/pairs"):
        harder.build(tmp_path, tmp_path / "out")


def test_english_truth_points_at_the_rewritten_passage(tmp_path, nltk_data):
    host, tail = "An unrelated opening line. ", " A closing remark."
    copied = "The committee approved the plan. Members discussed important details at length."
    source = "Before it. " + copied + " After it."
    data = _pan_set(tmp_path / "data", "02-no-obfuscation", host, copied, tail, source)
    assert harder.build(data, tmp_path / "out", nltk_data=nltk_data) == "en"
    for kind in ("02-random", "03-synonym", "04-merge", "05-wrap", "06-heavy"):
        for text, source_text, case in _rewritten(tmp_path / "out", kind):
            assert (text[: case.this_start], text[case.this_end :]) == (host, tail)
            assert source_text[case.source_start : case.source_end] == copied
    [(merged, _, case), _] = _rewritten(tmp_path / "out", "04-merge")
    expected = copied.replace("plan. Members", "plan; members")
    assert merged[case.this_start : case.this_end] == expected
