"""Every URL pattern of the site, walked from the resolver, for the owner, each role, a
member of another workspace and an anonymous client: each answer must be what the
permission policy says (docs/roles.md). A pattern missing from RULES fails the test, so
an endpoint added later is classified before it ships.

Expected answers: allowed (anything but 401/403/404 and server errors), forbidden (403:
a member without the right), hidden (404: not a member, the object does not exist for
them), login (anonymous: the login page, or 401/403 from the API).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.views import APIView

from dedup.models import DedupRun
from documents import services
from documents.models import ArchiveImport
from tests.documents.factories import WATER, WATER_COPIED, processed
from workspaces import services as workspace_services

pytestmark = pytest.mark.django_db

OPEN, LOGIN = "open", "login"  # no login needed; any logged-in user
READ, REVIEW, WRITE, ADMIN = "read", "review", "write", "admin"

# What each role may do (docs/roles.md), stated here again rather than imported: the test
# checks the code against the documented table.
ROLE_RIGHTS = {
    "admin": {READ, REVIEW, WRITE, ADMIN},
    "teacher": {READ, REVIEW, WRITE},
    "editor": {READ, REVIEW, WRITE},
    "reviewer": {READ, REVIEW},
}
ACTORS = ("owner", "admin", "teacher", "editor", "reviewer", "outsider", "anonymous")

# URL name -> {method: the right it needs on the collection, document or workspace named
# in the URL}.
RULES: dict[str, dict[str, str]] = {
    "home": {"GET": OPEN},  # a redirect to the collections
    "schema": {"GET": OPEN},
    "collection_list": {"GET": LOGIN, "POST": LOGIN},
    "collection_detail": {"GET": READ},
    "collection_upload": {"POST": WRITE},
    "collection_archives": {"POST": WRITE},
    "collection_settings": {"POST": WRITE},
    "collection_delete": {"POST": WRITE},
    "collection_share": {"POST": ADMIN},
    "collection_pairs": {"GET": READ},
    "collection_collusion": {"GET": READ},
    "collection_exclusions": {"POST": WRITE},
    "collection_reanalyze": {"POST": WRITE},
    "import_retry": {"POST": WRITE},
    "document_detail": {"GET": READ},
    "document_report": {"GET": READ},
    "document_original": {"GET": READ},
    "document_recheck": {"POST": WRITE},
    "document_delete": {"POST": WRITE},
    "document_template": {"POST": WRITE},
    "document_submitted": {"POST": WRITE},
    "document_verdict": {"POST": REVIEW},
    "dedup_collection": {"GET": READ, "POST": WRITE},
    "dedup_pair": {"GET": READ},
    "workspace_list": {"GET": LOGIN, "POST": LOGIN},
    "workspace_detail": {"GET": READ},
    "workspace_rename": {"POST": ADMIN},
    "workspace_member_add": {"POST": ADMIN},
    "workspace_member_role": {"POST": ADMIN},
    "workspace_member_remove": {"POST": ADMIN},
    "workspace_invite": {"POST": ADMIN},
    "invitation_accept": {"GET": LOGIN, "POST": LOGIN},
    "api_collections": {"GET": LOGIN, "POST": LOGIN},
    "api_collection": {"GET": READ, "PATCH": WRITE, "DELETE": WRITE},
    "api_collection_archives": {"GET": READ, "PUT": WRITE},
    "api_collection_shares": {"GET": READ, "POST": ADMIN},
    "api_collection_share": {"DELETE": ADMIN},
    "api_collection_documents": {"GET": READ, "POST": WRITE},
    "api_collection_imports": {"GET": READ, "POST": WRITE},
    "api_collection_progress": {"GET": READ},
    "api_collection_pairs": {"GET": READ},
    "api_collection_graph": {"GET": READ},
    "api_collection_dedup": {"GET": READ, "POST": WRITE},
    "api_dedup_run": {"GET": READ},
    "api_document": {"GET": READ, "PATCH": WRITE, "DELETE": WRITE},
    "api_document_recheck": {"POST": WRITE},
    "api_document_report": {"GET": READ},
    "api_document_report_pdf": {"GET": READ},
    "api_document_report_html": {"GET": READ},
    "api_document_text": {"GET": READ},
    "api_document_verdicts": {"GET": READ, "POST": REVIEW},
    "api_workspaces": {"GET": LOGIN, "POST": LOGIN},
    "api_workspace": {"GET": READ, "PATCH": ADMIN},
    "api_workspace_members": {"GET": READ, "POST": ADMIN},
    "api_workspace_member": {"PATCH": ADMIN, "DELETE": ADMIN},
    "api_workspace_invitations": {"POST": ADMIN},
    "api_invitation": {"POST": LOGIN},
}
# Patterns outside the workspace policy, with why.
EXEMPT_NAMESPACES = {"admin": "Django's admin site: staff only, by its own checks"}
EXEMPT_NAMES = {
    name: "django.contrib.auth's own pages"
    for name in (
        "login", "logout", "password_change", "password_change_done", "password_reset",
        "password_reset_done", "password_reset_confirm", "password_reset_complete",
    )
}  # fmt: skip
# Query strings some pages need to reach their permission check with a valid request.
QUERIES = {"dedup_pair": "?a={document_id}&b={source_id}"}


@dataclass(frozen=True)
class Route:
    name: str
    namespace: str | None
    view: object
    converters: tuple[str, ...]


def routes() -> list[Route]:
    """Every pattern of the root URL configuration, includes followed."""
    found: list[Route] = []

    def walk(patterns: list, namespace: str | None) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, pattern.namespace or namespace)
            elif isinstance(pattern, URLPattern):
                converters = tuple(pattern.pattern.converters)
                found.append(Route(pattern.name, namespace, pattern.callback, converters))

    walk(get_resolver().url_patterns, None)
    return found


def checked_routes() -> list[Route]:
    return [
        r for r in routes() if r.namespace not in EXEMPT_NAMESPACES and r.name not in EXEMPT_NAMES
    ]


def test_every_url_pattern_is_classified():
    unknown = [r.name for r in checked_routes() if r.name not in RULES]
    assert unknown == [], f"classify these URL patterns in RULES (or exempt them): {unknown}"
    gone = set(RULES) - {r.name for r in routes()}
    assert gone == set(), f"RULES names patterns that no longer exist: {gone}"


def test_the_api_views_accept_exactly_the_classified_methods():
    for route in checked_routes():
        view_class = getattr(route.view, "view_class", None)
        if view_class is None or not issubclass(view_class, APIView):
            continue  # a function view: RULES lists what it accepts
        methods = {m.upper() for m in ("get", "post", "put", "patch", "delete")}
        accepted = {m for m in methods if hasattr(view_class, m.lower())}
        assert accepted == set(RULES[route.name]), route.name


@pytest.fixture
def world(team, django_user_model):
    """The department's assignment (two documents, one copying the other, a near-duplicate
    run), its archive with a failed import, a member to act on, an invitation."""
    admin = team.users["admin"]
    target = django_user_model.objects.create_user(username="target")
    workspace_services.member_add(workspace=team.workspace, username="target", role="teacher")
    assignment = services.collection_create(owner=admin, name="Essay", workspace=team.workspace)
    archive = services.collection_create(
        owner=admin, name="Past years", kind="archive", workspace=team.workspace
    )
    source = processed(assignment, "water.txt", WATER.encode())
    copier = processed(assignment, "copier.txt", WATER_COPIED.encode())
    job = ArchiveImport.objects.create(
        collection=archive, names="old.zip", status=ArchiveImport.Status.FAILED
    )
    run = DedupRun.objects.create(collection=assignment, method="periods")
    invitation = workspace_services.invitation_create(
        workspace=team.workspace, role="reviewer", by=admin
    )
    kwargs = {
        "collection_id": assignment.id,
        "document_id": copier.id,
        "source_id": source.id,
        "import_id": job.id,
        "run_id": run.id,
        "workspace_id": team.workspace.id,
        "user_id": target.id,
        "token": invitation.token,
    }
    users = {"owner": admin, **team.users, "outsider": team.outsider, "anonymous": None}
    return kwargs, users


def expected(need: str, actor: str) -> str:
    if need == OPEN:
        return "allowed"
    if actor == "anonymous":
        return "login"
    if need == LOGIN:
        return "allowed"
    if actor == "outsider":
        return "hidden"
    role = "admin" if actor == "owner" else actor
    return "allowed" if need in ROLE_RIGHTS[role] else "forbidden"


def outcome(response, api: bool) -> str:  # type: ignore[no-untyped-def]
    code = response.status_code
    assert code < 500, response.content[:500]
    if code == 404:
        return "hidden"
    if code in (401, 403):
        return "login" if code == 401 or (api and _unauthenticated(response)) else "forbidden"
    if code == 302 and response["Location"].startswith("/accounts/login/"):
        return "login"
    return "allowed"


def _unauthenticated(response) -> bool:  # type: ignore[no-untyped-def]
    return "credentials were not provided" in response.content.decode()


def request(client: Client, method: str, url: str):  # type: ignore[no-untyped-def]
    if method == "POST":
        return client.post(url, {})
    if method in ("PUT", "PATCH", "DELETE"):
        return getattr(client, method.lower())(url, "{}", content_type="application/json")
    return client.get(url)


CASES = [(name, method) for name, methods in RULES.items() for method in methods]


@pytest.mark.parametrize(("name", "method"), CASES, ids=[f"{n}-{m}" for n, m in CASES])
def test_each_endpoint_answers_each_actor_as_the_policy_says(world, name, method):
    kwargs, users = world
    route = next(r for r in routes() if r.name == name)
    url = reverse(name, kwargs={key: kwargs[key] for key in route.converters})
    url += QUERIES.get(name, "").format(**kwargs)
    need = RULES[name][method]
    answers = {}
    for actor in ACTORS:
        client = Client()
        if users[actor] is not None:
            client.force_login(users[actor])
        with transaction.atomic():  # what an allowed request changes is undone for the next
            answers[actor] = outcome(request(client, method, url), url.startswith("/api/"))
            transaction.set_rollback(True)
    assert answers == {actor: expected(need, actor) for actor in ACTORS}
