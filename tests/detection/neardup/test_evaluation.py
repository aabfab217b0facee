import json

from detection.neardup.evaluation import evaluate_method, load_dataset
from detection.neardup.periods import PeriodFeatures
from detection.neardup.templates import TemplateConfig, TemplateFilter

LABELS = {
    (0, 1): "duplicate",
    (0, 2): "containment",
    (0, 3): "containment",
    (1, 2): "containment",
    (0, 4): "different",
    (4, 8): "duplicate",
    (5, 6): "duplicate",
    (4, 7): "different",  # two stories on the same site (as are 0–4 and 5–8)
    (5, 8): "different",
}
STORY = {0: 0, 1: 0, 2: 0, 3: 0, 4: 1, 5: 2, 6: 2, 7: 3, 8: 1}


def write_set(root, collection):
    (root / "docs").mkdir()
    for doc, text in collection.items():
        (root / "docs" / f"d{doc}.txt").write_text(text, encoding="utf-8")
    rows = ["doc_a\tdoc_b\tlabel"] + [
        f"d{a}.txt\td{b}.txt\t{lab}" for (a, b), lab in LABELS.items()
    ]
    (root / "pairs.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    rows = ["doc\tcluster"] + [f"d{d}.txt\t{s}" for d, s in STORY.items()]
    (root / "clusters.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")


def test_template_lines_are_those_on_many_pages_digits_masked():
    pages = [f"Site\nPosted 2013-03-0{i}\nStory number {'abcdef'[i]}\nFooter" for i in range(6)]
    filt = TemplateFilter(TemplateConfig(min_df=5))
    filt.fit(pages)
    assert filt.remove(pages[2]) == "Story number c"
    assert filt.remove("Site\nFooter") == "Site\nFooter"  # nothing would remain: kept whole


def test_evaluation_scores_pairs_clusters_and_same_site_pairs(tmp_path, collection):
    write_set(tmp_path, collection)
    data = load_dataset(tmp_path / "docs", tmp_path / "pairs.tsv", tmp_path / "clusters.tsv")
    result = evaluate_method(PeriodFeatures(), data)
    assert result.scores.f1 == 1.0
    assert result.scores.relation_accuracy == 1.0
    assert result.same_site_pairs == 3 and result.same_site_false_matches == 0
    # story 3 (doc 7) is appended to doc 3, so it is clustered with story 0: ARI below 1
    assert 0.5 < result.ari < 1.0


def test_cli_prints_json_then_a_table(tmp_path, collection, capsys):
    from detection.__main__ import main

    write_set(tmp_path, collection)
    code = main(
        [
            "neardup-eval",
            str(tmp_path / "docs"),
            str(tmp_path / "pairs.tsv"),
            str(tmp_path / "clusters.tsv"),
            "--methods",
            "periods,simhash",
        ]
    )
    first, *table = capsys.readouterr().out.splitlines()
    summary = json.loads(first)
    assert code == 0
    assert [m["method"] for m in summary["methods"]] == ["periods", "simhash"]
    assert summary["documents"] == 9 and summary["pairs"] == len(LABELS)
    assert table[0].split()[:4] == ["method", "P", "R", "F1"]


def test_cluster_command_prints_one_json_line_per_group(tmp_path, collection, capsys):
    from detection.__main__ import main

    write_set(tmp_path, collection)
    assert main(["neardup-cluster", str(tmp_path / "docs"), "--method", "periods"]) == 0
    groups = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    docs = sorted(sorted(m["doc"] for m in g["members"]) for g in groups)
    assert docs == [
        ["d0.txt", "d1.txt", "d2.txt", "d3.txt", "d7.txt"],
        ["d4.txt", "d8.txt"],
        ["d5.txt", "d6.txt"],
    ]
