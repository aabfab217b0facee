"""benchmarks.render: marked tables are rewritten from the results JSON, the rest is kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import record, render

PLAGDET = {
    "sets": {
        "tiny-set": {
            "folders": [
                {
                    "name": "01-no-plagiarism",
                    "pairs": 4,
                    "pairs_with_detections": 0,
                    "cases": 0,
                    "precision": 1.0,
                    "recall": 1.0,
                    "granularity": 1.0,
                    "plagdet": 1.0,
                },
                {
                    "name": "02-copies",
                    "pairs": 3,
                    "pairs_with_detections": 3,
                    "cases": 5,
                    "precision": 0.99,
                    "recall": 0.9,
                    "granularity": 1.0,
                    "plagdet": 0.9429,
                },
            ]
        }
    }
}


def test_it_renders_the_plagdet_table_from_the_json():
    assert render.plagdet_table({"plagdet": PLAGDET}) == "\n".join(
        [
            "| set / folder | precision | recall | granularity | plagdet |"
            " pairs without detection |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
            "| tiny-set 01-no-plagiarism | – | – | – | – | 4/4 |",
            "| tiny-set 02-copies | 0.9900 | 0.9000 | 1.0000 | **0.9429** | 0/3 |",
        ]
    )


def test_it_replaces_only_the_marked_block():
    text = "intro\n<!-- BEGIN bench:plagdet -->\nold table\n<!-- END bench:plagdet -->\noutro\n"
    rendered = render.render(text, {"plagdet": PLAGDET})
    assert rendered.startswith("intro\n<!-- BEGIN bench:plagdet -->\n| set / folder |")
    assert rendered.endswith("| 0/3 |\n<!-- END bench:plagdet -->\noutro\n")
    assert "old table" not in rendered
    assert render.render(rendered, {"plagdet": PLAGDET}) == rendered


def test_it_refuses_an_unknown_table():
    with pytest.raises(KeyError, match="bench:nosuch"):
        render.render("<!-- BEGIN bench:nosuch -->\n<!-- END bench:nosuch -->\n", {})


def test_record_keeps_the_other_data_sets(tmp_path: Path):
    record.save("plagdet", "a", {"folders": []}, results=tmp_path)
    record.save("plagdet", "b", {"folders": [1]}, results=tmp_path)
    record.save("plagdet", "a", {"folders": [2]}, results=tmp_path)
    saved = json.loads((tmp_path / "plagdet.json").read_text())
    assert list(saved["sets"]) == ["a", "b"]
    assert saved["sets"]["a"]["folders"] == [2]
    assert saved["sets"]["b"]["folders"] == [1]


def test_the_documents_tables_match_the_saved_results():
    results = render.load()
    for path in render.DOCUMENTS:
        text = path.read_text()
        assert render.render(text, results) == text, f"run python -m benchmarks.render ({path})"
