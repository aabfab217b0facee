"""The OpenAPI schema is valid and exact: a client that builds its requests from the schema
alone uploads a file, a ZIP batch and a refused double upload, lists a collection's
documents whole and by pages, and every answer matches what the schema says of its status.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from openapi_schema_validator import OAS30Validator
from openapi_spec_validator import validate
from rest_framework.test import APIClient

from documents import services
from tests.documents.factories import WATER
from workspaces import services as workspace_services

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(json.dumps(schema, default=str))  # plain JSON types, as served


def test_the_schema_is_a_valid_openapi_document(spec):
    validate(spec)


def test_every_operation_describes_its_errors(spec):
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            codes = set(operation["responses"])
            where = f"{method.upper()} {path}"
            if path.startswith("/api/") and path != "/api/schema/":
                assert {"401", "403", "503"} <= codes, where
            if "{" in path:
                assert "404" in codes, where
            if method in ("post", "put", "patch"):
                assert "400" in codes, where


def _inline(schema: Any, spec: dict[str, Any]) -> Any:
    """The schema with its `$ref`s replaced by the components they name."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[1]
            return _inline(spec["components"]["schemas"][name], spec)
        return {key: _inline(value, spec) for key, value in schema.items()}
    if isinstance(schema, list):
        return [_inline(item, spec) for item in schema]
    return schema


class SchemaClient:
    """Requests made from the schema's operations only: the parameters, the request body's
    media type and fields, and each answer checked against the operation's response."""

    def __init__(self, spec: dict[str, Any], api: APIClient) -> None:
        self.spec, self.api = spec, api

    def call(self, method: str, path: str, params: dict, fields: dict | None = None):
        operation = self.spec["paths"][path][method]
        url = path.format(**{p["name"]: params.pop(p["name"]) for p in _path_params(operation)})
        query = {name: value for name, value in params.items() if name in _query_names(operation)}
        assert query == params, f"not parameters of {method} {path}: {set(params) - set(query)}"
        if fields is None:
            response = getattr(self.api, method)(url, query)
        else:
            response = self.api.generic(method.upper(), url, **self._body(operation, fields))
        self._check(operation, response)
        return response

    def _body(self, operation: dict, fields: dict) -> dict:
        content = operation["requestBody"]["content"]
        assert list(content) == ["multipart/form-data"], content
        schema = _inline(content["multipart/form-data"]["schema"], self.spec)
        parts = []
        for name, value in fields.items():
            kind = schema["properties"][name]
            binary = kind.get("format") == "binary" or kind.get("items", {}).get("format")
            for item in value if isinstance(value, list) else [value]:
                parts.append((name, item, bool(binary)))
        boundary = "schema-client-boundary"
        return {
            "data": _multipart(parts, boundary),
            "content_type": f"multipart/form-data; boundary={boundary}",
        }

    def _check(self, operation: dict, response) -> None:  # type: ignore[no-untyped-def]
        declared = operation["responses"]
        code = str(response.status_code)
        assert code in declared, f"{code} is not declared: {sorted(declared)}"
        content = declared[code].get("content", {}).get("application/json")
        if content is not None:
            OAS30Validator(_inline(content["schema"], self.spec)).validate(response.json())


def _path_params(operation: dict) -> list[dict]:
    return [p for p in operation.get("parameters", []) if p["in"] == "path"]


def _query_names(operation: dict) -> set[str]:
    return {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}


def _multipart(parts: list[tuple[str, Any, bool]], boundary: str) -> bytes:
    body = b""
    for name, value, binary in parts:
        body += f"--{boundary}\r\n".encode()
        if binary:
            filename, data = value
            body += (
                (
                    f'Content-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                    "Content-Type: application/octet-stream\r\n\r\n"
                ).encode()
                + data
                + b"\r\n"
            )
        else:
            body += f'Content-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
    return body + f"--{boundary}--\r\n".encode()


UPLOAD = "/api/collections/{collection_id}/documents/"


@pytest.fixture
def client(spec, api):
    return SchemaClient(spec, api)


def test_a_client_built_from_the_schema_uploads_a_file(client, assignment):
    answer = client.call(
        "post", UPLOAD, {"collection_id": assignment.id}, {"file": ("essay.txt", WATER.encode())}
    )
    assert answer.status_code == 201 and answer.json()["status"] == "queued"
    assert list(assignment.documents.values_list("filename", flat=True)) == ["essay.txt"]


def test_the_zip_answer_is_described(client, assignment):
    batch = io.BytesIO()
    with zipfile.ZipFile(batch, "w") as archive:
        archive.writestr("class/ann.txt", WATER)
        archive.writestr("class/picture.png", b"\x89PNG")
    answer = client.call(
        "post", UPLOAD, {"collection_id": assignment.id}, {"file": ("class.zip", batch.getvalue())}
    )
    assert answer.status_code == 201
    assert [d["id"] for d in answer.json()["documents"]] == list(
        assignment.documents.values_list("id", flat=True)
    )
    assert [s["path"] for s in answer.json()["skipped"]] == ["class/picture.png"]


def test_a_repeated_file_field_is_refused_not_dropped(client, assignment):
    two = [("a.txt", WATER.encode()), ("b.txt", b"Another text entirely, about trains.")]
    answer = client.call("post", UPLOAD, {"collection_id": assignment.id}, {"file": two})
    assert answer.status_code == 400
    assert "2 files were sent" in answer.json()["file"][0]
    assert not assignment.documents.exists()


def test_lists_are_described_whole_and_by_pages(client, assignment):
    for n in range(3):
        services.document_upload(collection=assignment, filename=f"{n}.txt", data=b"text %d" % n)
    path = "/api/collections/{collection_id}/documents/"
    whole = client.call("get", path, {"collection_id": assignment.id})
    assert len(whole.json()) == 3
    page = client.call("get", path, {"collection_id": assignment.id, "limit": 2, "offset": 1})
    assert (page.json()["count"], len(page.json()["results"])) == (3, 2)
    refused = client.call("get", path, {"collection_id": assignment.id, "limit": "x"})
    assert refused.status_code == 400


def test_error_answers_match_their_description(
    spec, client, assignment, stranger, django_user_model
):
    assert client.call("get", UPLOAD, {"collection_id": 10**9}).status_code == 404
    client.api.force_authenticate(None)
    assert client.call("get", UPLOAD, {"collection_id": assignment.id}).status_code == 401
    reviewer = django_user_model.objects.create_user(username="reviewer")
    workspace_services.member_add(
        workspace=assignment.workspace, username="reviewer", role="reviewer"
    )
    client.api.force_authenticate(reviewer)
    refused = client.call(
        "post", UPLOAD, {"collection_id": assignment.id}, {"file": ("x.txt", b"text")}
    )
    assert refused.status_code == 403
    document = services.document_upload(collection=assignment, filename="q.txt", data=b"text")
    report = client.call(
        "get", "/api/documents/{document_id}/report/", {"document_id": document.id}
    )
    assert report.status_code == 409 and report.json()["status"] == "queued"
