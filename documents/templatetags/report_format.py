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
