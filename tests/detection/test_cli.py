"""`python -m detection`: compare, pan (PAN software interface) and evaluate."""

from pathlib import Path

from detection.__main__ import build_parser, main
from detection.pan import output_name, read_pairs

SOURCE = (
    "国务院新闻办公室今天举行新闻发布会，介绍今年经济工作的主要安排。"
    "发言人说，今年要继续实施积极的财政政策，保持经济平稳较快发展。"
    "会议强调，要进一步扩大内需，促进消费和投资协调增长。\r\n"
)
OTHER = "昨天下午，市体育馆举行了一场精彩的篮球比赛，吸引了数千名观众。主队最终获胜。\r\n"


def make_corpus(root: Path) -> Path:
    for name in ("src", "susp", "02-none", "01-no-plagiarism"):
        (root / name).mkdir(parents=True)
    (root / "src" / "source-document00001.txt").write_bytes(SOURCE.encode())
    (root / "src" / "source-document00002.txt").write_bytes(OTHER.encode())
    suspicious = OTHER + SOURCE
    (root / "susp" / "suspicious-document00001.txt").write_bytes(suspicious.encode())
    (root / "susp" / "suspicious-document00002.txt").write_bytes("完全无关的内容。\n".encode())
    pairs = (
        "suspicious-document00001.txt source-document00001.txt\n"
        "suspicious-document00002.txt source-document00001.txt\n"
    )
    (root / "pairs").write_text(pairs, encoding="utf-8")
    (root / "02-none" / "pairs").write_text(pairs.splitlines()[0] + "\n", encoding="utf-8")
    (root / "01-no-plagiarism" / "pairs").write_text(pairs.splitlines()[1] + "\n", "utf-8")
    start = len(OTHER)  # characters, not bytes: the texts are read with newline=""
    (root / "02-none" / "suspicious-document00001-source-document00001.xml").write_text(
        '<document reference="suspicious-document00001.txt">\n'
        f'<feature name="plagiarism" this_offset="{start}" this_length="{len(SOURCE) - 2}" '
        'source_reference="source-document00001.txt" source_offset="0" '
        f'source_length="{len(SOURCE) - 2}" />\n</document>\n',
        encoding="utf-8",
    )
    return root


def test_pan_writes_one_xml_per_pair_and_evaluate_scores_them(tmp_path, capsys):
    corpus = make_corpus(tmp_path / "corpus")
    out = tmp_path / "out"
    assert (
        main(["pan", str(corpus / "pairs"), str(corpus / "src"), str(corpus / "susp"), str(out)])
        == 0
    )
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(output_name(*pair) for pair in read_pairs(corpus / "pairs"))
    found = (out / "suspicious-document00001-source-document00001.xml").read_text("utf-8")
    assert 'name="detected-plagiarism"' in found
    assert f'this_offset="{len(OTHER)}"' in found
    assert 'kind="verbatim"' in found  # ours: the evaluator reads only the offsets
    empty = (out / "suspicious-document00002-source-document00001.xml").read_text("utf-8")
    assert "<feature" not in empty
    capsys.readouterr()
    assert main(["evaluate", str(corpus), str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["01-no-plagiarism", "02-none", "overall"]
    assert "plagdet 1.0000" in lines[1]
    assert "pairs-without-detection 1/1" in lines[0]


def test_compare_prints_passages_side_by_side(tmp_path, capsys):
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text(OTHER + SOURCE, encoding="utf-8")
    b.write_text(SOURCE, encoding="utf-8")
    assert main(["compare", str(a), str(b)]) == 0
    output = capsys.readouterr().out
    assert output.startswith("#1 score")
    assert "|" in output


def test_the_dispatcher_offers_the_core_subcommands():
    parser = build_parser()
    choices = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert {"compare", "pan", "evaluate"} <= set(choices)
