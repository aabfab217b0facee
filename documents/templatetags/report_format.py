from django import template

register = template.Library()


@register.filter
def percent(value: float | None) -> str:
    """0.4237 -> '42.4%'; missing values (not processed yet) -> '–'; a share that rounds to
    zero but is not zero -> '<0.1%' (a source with one short passage in a long document must
    not read as "0.0%", i.e. nothing)."""
    if value is None:
        return "–"
    if 0 < value < 0.0005:
        return "<0.1%"
    return f"{value * 100:.1f}%"


# A passage's kind (detection.Passage.kind) as a teacher reads it, and what it means (the
# reports' legend and tooltips say the same).
KIND_NAMES = {"verbatim": "Verbatim copy", "edited": "Edited copy", "summary": "Summary"}
KIND_MEANINGS = {
    "verbatim": "copied word for word, perhaps with a few words changed",
    "edited": "reworded: words replaced, moved, or translated and back",
    "summary": "a shorter retelling of a longer passage of the source",
}
ALIKE_MEANING = (
    "how closely the passage's sentences match their source's, word for word (100%: the same words)"
)


@register.filter
def passage_kind(kind: str) -> str:
    """'edited' -> 'Edited copy'; an unknown kind is shown as it is."""
    return KIND_NAMES.get(kind, kind)


@register.filter
def kind_meaning(kind: str) -> str:
    return KIND_MEANINGS.get(kind, "")


@register.filter
def alike(score: float | None) -> str:
    """A passage's score (0..1, the mean similarity of its sentences) -> '59% alike'."""
    if score is None:
        return ""
    return f"{round(score * 100)}% alike"


@register.inclusion_tag("documents/_kinds_legend.html")
def kinds_legend() -> dict[str, object]:
    """The legend of the passage kinds and of the score, beside a report's passages."""
    kinds = [(KIND_NAMES[kind], meaning) for kind, meaning in KIND_MEANINGS.items()]
    return {"kinds": kinds, "alike_meaning": ALIKE_MEANING}
