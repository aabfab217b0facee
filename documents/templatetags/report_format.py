from django import template

register = template.Library()


@register.filter
def percent(value: float | None) -> str:
    """0.4237 -> '42.4%'; missing values (not processed yet) -> '–'."""
    if value is None:
        return "–"
    return f"{value * 100:.1f}%"
