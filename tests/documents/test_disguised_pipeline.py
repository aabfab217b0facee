"""A document checked through the PostgreSQL index gets the passages that the command line
(`python -m detection pan`) gives for the same pair, disguised copies included."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from detection.pan import run_pan
from documents import services
from documents.models import MatchPassage
from tests.documents.factories import processed

# Two pairs with a case from each disguised folder of PAN 2013: the first ones listed.
FOLDERS = ("03-random-obfuscation", "04-translation-obfuscation", "05-summary-obfuscation")
PER_FOLDER = 2


def _sample(corpus: Path) -> list[tuple[str, str]]:
    pairs = []
    for folder in FOLDERS:
        cases = sorted(
            path
            for path in (corpus / folder).glob("*.xml")
            if 'name="plagiarism"' in path.read_text(encoding="utf-8")
        )
        for path in cases[:PER_FOLDER]:
            suspicious, source = path.stem.split("-source-")
            pairs.append((f"{suspicious}.txt", f"source-{source}.txt"))
    return pairs


def _command_line(tmp: Path, suspicious_text: str, source_text: str) -> set[tuple]:
    """The passages `python -m detection pan` writes for the one pair."""
    for folder in ("src", "susp", "out"):
        (tmp / folder).mkdir(parents=True)
    (tmp / "src" / "source.txt").write_text(source_text, encoding="utf-8", newline="")
    (tmp / "susp" / "suspicious.txt").write_text(suspicious_text, encoding="utf-8", newline="")
    (tmp / "pairs").write_text("suspicious.txt source.txt\n")
    run_pan(tmp / "pairs", tmp / "src", tmp / "susp", tmp / "out")
    (result,) = (tmp / "out").glob("*.xml")
    found = set()
    for feature in ET.parse(result).getroot():
        start, length = int(feature.get("this_offset")), int(feature.get("this_length"))
        source_start = int(feature.get("source_offset"))
        source_end = source_start + int(feature.get("source_length"))
        found.add((start, start + length, source_start, source_end))
    return found


@pytest.mark.django_db
def test_the_app_finds_what_the_command_line_finds_on_disguised_pairs(
    shared_data, assignment, archive, tmp_path
):
    corpus = shared_data / "pan13-train"
    kinds = set()
    for number, (suspicious_name, source_name) in enumerate(_sample(corpus)):
        source = processed(archive, source_name, (corpus / "src" / source_name).read_bytes())
        suspicious = processed(
            assignment, suspicious_name, (corpus / "susp" / suspicious_name).read_bytes()
        )
        stored = MatchPassage.objects.filter(
            match__document=suspicious, match__source=source
        ).values_list("start", "end", "source_start", "source_end", "kind")
        expected = _command_line(tmp_path / str(number), suspicious.text, source.text)
        assert expected, f"the command line found nothing in {suspicious_name}"
        assert {row[:4] for row in stored} == expected, suspicious_name
        kinds.update(row[4] for row in stored)
        services.document_delete(document=suspicious)  # postings too: one pair at a time
        services.document_delete(document=source)
    assert kinds - {"verbatim"}, "no disguised passage was labelled as such"


@pytest.mark.django_db
@pytest.mark.parametrize("retrieval", [False, True])
def test_term_retrieval_finds_a_paraphrase_sharing_no_feature_only_when_set(
    settings, assignment, archive, retrieval
):
    from detection import analyze, model_version
    from documents.detector_config import detector_config
    from tests.detection.paraphrase import PARAPHRASE, SOURCE

    settings.DETECTION_TERM_RETRIEVAL = retrieval
    source = processed(archive, "source.txt", SOURCE.encode())
    copy = processed(assignment, "copy.txt", PARAPHRASE.encode())
    assert copy.model_version == model_version(detector_config())
    assert bool(analyze(SOURCE, detector_config()).terms) is retrieval
    stored = MatchPassage.objects.filter(match__document=copy, match__source=source)
    assert set(stored.values_list("kind", flat=True)) == ({"edited"} if retrieval else set())
