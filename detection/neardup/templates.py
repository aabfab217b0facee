"""Site boilerplate removal by recurring lines (the template step of SimHash and DDW).

SimHash removes "copyright lines and 'share to' links" by template matching before hashing;
DDW extracts paragraphs "by structure, punctuation and templates".  Neither gives the rule,
so here a *template line* is a line (digits masked, see ``text.line_key``) that occurs in at least
``max(min_df, df_ratio * N)`` of the N documents the filter was fitted on.  A story is reprinted
on a handful of sites while a site prints its header, navigation and footer on every page, so
the document frequency separates the two: in both evaluation sets no story has more than 4
pages, while each site prints its chrome on 31–77 of them (docs/neardup.md, "Templates").
Known limit: a story reprinted on more than ``max(min_df, df_ratio * N)`` pages of the
collection loses its recurring lines too — when *every* line of a document would go, the
document is kept whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from detection.neardup.text import count_lines, line_key, lines

__all__ = ["TemplateConfig", "TemplateFilter", "TemplateStripping"]


@dataclass(frozen=True, slots=True)
class TemplateConfig:
    min_df: int = 5
    df_ratio: float = 0.01
    version: str = "tpl1"


@dataclass(slots=True)
class TemplateFilter:
    """Learns recurring lines from a raw collection; strips them from raw texts."""

    config: TemplateConfig = field(default_factory=TemplateConfig)
    _template: frozenset[str] = frozenset()

    def fit(self, texts: Iterable[str]) -> None:
        texts = list(texts)
        df = count_lines(texts)
        limit = max(self.config.min_df, self.config.df_ratio * len(texts))
        self._template = frozenset(key for key, n in df.items() if n >= limit)

    @property
    def template_lines(self) -> frozenset[str]:
        return self._template

    def remove(self, text: str) -> str:
        """Raw ``text`` without its template lines (whole text if nothing would remain)."""
        kept = [line for line in lines(text) if line_key(line) not in self._template]
        return "\n".join(kept) if kept else text


class _TemplateSettings(Protocol):
    @property
    def strip_templates(self) -> bool: ...

    @property
    def templates(self) -> TemplateConfig: ...


class TemplateStripping:
    """Mixin for the methods whose first step is this filter (SimHash, DDW, DWDCS, baselines).

    The method class is a ``@dataclass(slots=True)`` whose ``config`` has ``strip_templates`` and
    ``templates``, and it declares ``_templates: TemplateFilter = field(init=False)`` itself: a
    field of a base class would come first in the field order, which is the order of a pickled
    method's state, so the runs pickled before dedup migration 0002 (which reads them) would
    load wrongly.
    A subclass that extends ``__post_init__`` or ``fit`` calls ``TemplateStripping.<name>(self)``:
    zero-argument ``super()`` does not work in a slotted dataclass before Python 3.14.
    """

    __slots__ = ()
    config: _TemplateSettings
    _templates: TemplateFilter

    def __post_init__(self) -> None:
        # The slot is the dataclass field of the subclass (see above), which mypy cannot see.
        self._templates = TemplateFilter(self.config.templates)  # type: ignore[misc]

    def fit(self, texts: Iterable[str]) -> None:
        """Learn the collection's template lines (none when ``config.strip_templates`` is off)."""
        if self.config.strip_templates:
            self._templates.fit(texts)
