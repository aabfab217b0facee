"""`manage.py evaluate_pipeline` scores stored reports and leaves nothing behind."""

import shutil

import pytest
from django.core.management import call_command

from documents.models import Document
from tests.documents.factories import DATA

TRUTH = """<document reference="suspicious-document00001.txt">
<feature name="plagiarism" this_offset="899" this_length="257"
 source_reference="source-document00001.txt" source_offset="335" source_length="257" />
</document>"""


@pytest.mark.django_db
def test_it_scores_a_pair_and_cleans_up(tmp_path, capsys, django_user_model):
    for folder in ("src", "susp", "02-none"):
        (tmp_path / folder).mkdir()
    shutil.copy(DATA / "zh_source.txt", tmp_path / "src" / "source-document00001.txt")
    shutil.copy(DATA / "zh_suspicious.txt", tmp_path / "susp" / "suspicious-document00001.txt")
    pair = "suspicious-document00001-source-document00001.xml"
    (tmp_path / "02-none" / pair).write_text(TRUTH)
    call_command("evaluate_pipeline", str(tmp_path))
    out = capsys.readouterr().out
    assert "1 pairs" in out
    assert "character precision 1.000, recall 1.000" in out
    assert not Document.objects.exists()
    assert not django_user_model.objects.exists()


def test_extracted_positions_map_back_to_the_raw_file_across_folded_white_space():
    from documents.management.commands.evaluate_pipeline import _raw_positions

    raw = "  Water  flows.\n\n  Rain   falls."
    text = "Water flows.\n\nRain falls."
    positions = _raw_positions(raw, text)
    assert len(positions) == len(text)
    assert [raw[p] for p in positions] == [
        c if not c.isspace() else raw[p] for c, p in zip(text, positions, strict=True)
    ]
    assert raw[positions[text.index("Rain")] : positions[text.index("Rain")] + 4] == "Rain"
    assert positions[text.index("falls")] == raw.index("falls")


def test_a_control_character_the_extraction_drops_keeps_the_mapping_in_step():
    from documents.management.commands.evaluate_pipeline import _raw_positions

    raw = "today was \\\x00 . When speaking"
    text = "today was \\ . When speaking"
    positions = _raw_positions(raw, text)
    assert positions[text.index("When")] == raw.index("When")
    assert positions[-1] == len(raw) - 1
