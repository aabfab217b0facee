"""A source, a paraphrase of it sharing no Low-IDF-Sig feature, and an unrelated text."""

# A paraphrase of SOURCE sentence by sentence: the same content words, reordered and reworded,
# so that no Low-IDF-Sig word chain survives.
SOURCE = (
    "Glaciers in the northern mountains have retreated sharply over the past century. "
    "Meteorologists attribute the retreat to warmer summers and thinner winter snowfall. "
    "Meltwater feeds rivers that irrigate farmland in the valleys below. "
    "Farmers depend on that water during the dry months of late summer. "
    "Hydrologists warn that the rivers will shrink once the glaciers vanish. "
    "Several villages have already built reservoirs to store spring meltwater. "
    "Engineers designed the reservoirs with funding from regional governments. "
    "Researchers measure the ice thickness every autumn using radar instruments."
)
PARAPHRASE = (
    "Over the last hundred years mountain glaciers of the north retreated sharply. "
    "Warmer summer seasons and winter snowfall that is thinner caused this retreat, "
    "meteorologists say. "
    "Valley farmland below is irrigated by rivers which meltwater feeds. "
    "In late summer, during dry months, farmers rely on this water. "
    "Once glaciers vanish, rivers shrink, hydrologists warn. "
    "Reservoirs storing spring meltwater were already built by several villages. "
    "Regional governments funded engineers who designed these reservoirs. "
    "Each autumn researchers use radar instruments to measure how thick the ice is."
)
UNRELATED = (
    "The orchestra rehearsed the symphony for three weeks before the premiere. "
    "The conductor asked the violins to play more softly in the second movement. "
    "Critics praised the performance and the audience applauded for ten minutes. "
)
