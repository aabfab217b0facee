"""A small class of English essays with copying, for the match overview and collusion tests.

alice wrote the forest and market paragraphs; bob copied alice's forest paragraph and wrote
the school one; carol copied alice's market paragraph; dave copied two sentences of bob's
school paragraph (more than half of his short essay); erin copied nobody. Submitted in that
order, a day apart: three pairs, bob→alice, carol→alice, dave→bob (copier→original), one
cluster of four; bob and alice's pair is the weakest (42 % of either text).
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from documents.models import Collection, Document
from tests.documents.factories import processed

FOREST = (
    "The forest covers nearly a third of the province and shelters hundreds of bird species. "
    "Logging was restricted after the floods of the nineties showed how firmly the trees held "
    "the soil. Today rangers count the nests every spring and publish the numbers online. "
    "Visitors may walk the marked paths but must not leave them during the breeding season."
)
MARKET = (
    "The old market hall reopened after three years of careful restoration. Farmers from the "
    "surrounding villages sell vegetables, cheese and bread there every Saturday morning. The "
    "city council hopes the hall will bring life back to the historic centre of the town. "
    "Critics say that the rents for the stalls are far too high for small producers."
)
SCHOOL = (
    "The village school now has a library with more than two thousand books. Parents collected "
    "money for the shelves and volunteers catalogued every volume by hand over the winter. "
    "Children may borrow two books a week and read them at home with their families. The "
    "teachers noticed that pupils who read more also write longer and clearer essays."
)
OWN = {
    "alice": "My essay is about the places that make our region worth living in. "
    "I interviewed my neighbours about what they would miss most if it disappeared.",
    "bob": "Nature and education are the two things I care about most in my home town. "
    "Last summer I spent three weeks helping at the reading club for younger pupils.",
    "carol": "Markets have always fascinated me because they mix trade with friendship. "
    "My grandfather sold apples there for forty years and knew every customer by name.",
    "dave": "Reading changed my life when I was nine years old and bored in hospital. "
    "A nurse brought me a pile of adventure stories and I finished them all in a week.",
    "erin": "Mountains are my favourite landscape, especially in the late autumn fog. "
    "I climbed the northern ridge with my brother and we watched the sun set over the lake. "
    "Our guide told us stories about shepherds who once lived in the stone huts up there.",
}
ESSAYS = {
    "alice": OWN["alice"] + "\n\n" + FOREST + "\n\n" + MARKET,
    "bob": OWN["bob"] + "\n\n" + FOREST + "\n\n" + SCHOOL,
    "carol": OWN["carol"] + "\n\n" + MARKET,
    "dave": OWN["dave"] + "\n\n" + SCHOOL[: SCHOOL.index(" Children")],
    "erin": OWN["erin"],
}
# The copier and the original of each pair.
COPIED = {("bob", "alice"), ("carol", "alice"), ("dave", "bob")}


def submitted(document: Document, days_ago: float) -> None:
    """Date the document's submission: `submitted_at` where documents have one, else the
    upload time (what the collusion graph reads)."""
    when = timezone.now() - timedelta(days=days_ago)
    fields = {f.name for f in Document._meta.get_fields()}
    column = "submitted_at" if "submitted_at" in fields else "created_at"
    Document.objects.filter(id=document.id).update(**{column: when})


def classroom(collection: Collection) -> dict[str, Document]:
    """The class's essays processed in `collection`, submitted a day apart, alice first."""
    documents = {}
    for number, (name, text) in enumerate(ESSAYS.items()):
        documents[name] = processed(collection, f"{name}.txt", text.encode())
        submitted(documents[name], days_ago=len(ESSAYS) - number)
    return documents


RIVER = (
    "The river was straightened two centuries ago to make room for fields and mills. Since "
    "then every spring flood has reached the lower streets of the old town. Engineers now plan "
    "to give the water back some of its former meadows upstream. Farmers who own those meadows "
    "will be paid for each hectare they leave to the river."
)
LAKE = (
    "The lake froze completely last winter for the first time in thirty years. Hundreds of "
    "skaters came from the city on the first weekend, and the police had to close the road. "
    "Scientists warned that the ice near the reeds stayed thin even in the coldest week. Two "
    "teenagers fell through but were pulled out by a fisherman who happened to pass."
)
LATER = {
    "gina": "Water shapes every town I know, and ours more than most. "
    "My family lost a cellar full of books in the flood of my tenth birthday.\n\n" + RIVER,
    "hana": "This essay collects what I learned about water in our valley this year. "
    "I read the newspapers of the last months and talked to my neighbours.\n\n"
    + RIVER
    + "\n\nOur teacher asked us to find a winter story as well. I chose the lake because my "
    "grandmother still talks about the winter she skated to the island.\n\n"
    + LAKE
    + "\n\nIn the end water is both a danger and a gift, and our town has to live with both.",
}
ARCHIVED = {
    "regional-news.txt": "Regional news, February edition.\n\n" + LAKE + "\n\nThe council "
    "meets on Tuesday to discuss the budget for the new bus station near the market square.",
    "lake-blog.txt": "Reprinted from the regional news with kind permission.\n\n" + LAKE,
}


def larger_class(collection: Collection, archive: Collection) -> dict[str, Document]:
    """The class and two more essays in a second group: gina's river paragraph, copied by
    hana with a lake paragraph that an article in `archive` and a blog reprinting it hold
    (one stretch, two sources)."""
    for name, text in ARCHIVED.items():
        processed(archive, name, text.encode())
    documents = classroom(collection)
    for number, (name, text) in enumerate(LATER.items()):
        documents[name] = processed(collection, f"{name}.txt", text.encode())
        submitted(documents[name], days_ago=0.5 - number * 0.25)
    return documents
