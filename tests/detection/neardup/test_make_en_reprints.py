import csv
import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "make_en_reprints.py"
WORDS = "river city council market school doctor storm museum budget harbor team".split()


def load_script():
    spec = importlib.util.spec_from_file_location("make_en_reprints", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def write_sources(folder: Path, count: int) -> None:
    folder.mkdir()
    for n in range(count):
        sentences = [
            f"The {WORDS[(n + i) % len(WORDS)]} report number {n} item {i} was published today."
            for i in range(12)
        ]
        (folder / f"source-document{n:05d}.txt").write_text(" ".join(sentences), encoding="utf-8")


def read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_it_writes_the_zh_reprints_layout_deterministically(tmp_path):
    script = load_script()
    write_sources(tmp_path / "src", 30)
    for out in ("a", "b"):
        script.main([str(tmp_path / out), "--src", str(tmp_path / "src"), "--stories", "10"])
    docs = sorted((tmp_path / "a" / "docs").glob("*.txt"))
    assert [p.read_text() for p in docs] == [
        p.read_text() for p in sorted((tmp_path / "b" / "docs").glob("*.txt"))
    ]
    clusters = {r["doc"]: r["cluster"] for r in read_tsv(tmp_path / "a" / "clusters.tsv")}
    assert set(clusters) == {p.name for p in docs} and len(set(clusters.values())) == 10
    pairs = read_tsv(tmp_path / "a" / "pairs.tsv")
    for row in pairs:
        same_story = clusters[row["doc_a"]] == clusters[row["doc_b"]]
        assert (row["label"] != "different") == same_story
    positives = sum(r["label"] != "different" for r in pairs)
    assert len(pairs) - positives == 2 * positives
