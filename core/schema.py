"""The OpenAPI schema's own rules (drf-spectacular's `DEFAULT_SCHEMA_CLASS`): every error an
operation can answer is described, and an answer that is a whole list or, with `limit` /
`offset`, one page of it is described as exactly that.

Errors, as `core.errors` and DRF answer them: 400 `{"<field>": ["message"]}` or
`{"detail": "message"}` for operations that take input (a body or query parameters); 401
without credentials and 403 without the right (or a session request without its CSRF
token); 404 for an object that does not exist for the caller (path parameters); 503 with
`Retry-After` while the database is down, for every operation that reads it (all but the
public ones). A 409 is declared by the operations that can conflict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import build_array_type, force_instance
from rest_framework import serializers
from rest_framework.permissions import AllowAny


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="what went wrong, for people")


FIELD_ERRORS = {
    "type": "object",
    "description": 'The input refused: {"<field>": ["message", ...]} for the fields at fault, '
    'or {"detail": "message"} for the request as a whole.',
    "additionalProperties": {
        "oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]
    },
}
_ERRORS = {
    "400": "Invalid input",
    "401": "Not authenticated (no or a wrong token)",
    "403": "Authenticated, but the caller's role does not allow this",
    "404": "No such object, or it belongs to a workspace the caller is not a member of",
    "503": "The database is down or restarting: the request was not carried out (an upload "
    "was not stored); send it again after the seconds of the Retry-After header",
}


@dataclass(frozen=True)
class ListOrPage:
    """The whole list of `serializer` items, or with `limit`/`offset` one page
    `{"count", "next", "previous", "results"}` (documents.api._listed)."""

    serializer: type[serializers.Serializer]


def page_schema(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["count", "next", "previous", "results"],
        "properties": {
            "count": {"type": "integer", "description": "items in the whole list"},
            "next": {"type": "string", "format": "uri", "nullable": True},
            "previous": {"type": "string", "format": "uri", "nullable": True},
            "results": build_array_type(item),
        },
    }


class AppAutoSchema(AutoSchema):
    def _get_response_for_code(
        self,
        serializer: Any,
        status_code: str,
        media_types: Any = None,
        direction: Any = "response",
    ) -> dict[str, Any]:
        if isinstance(serializer, ListOrPage):
            item = self.resolve_serializer(force_instance(serializer.serializer), direction).ref
            serializer = {"oneOf": [build_array_type(item), page_schema(item)]}
        return super()._get_response_for_code(serializer, status_code, media_types, direction)

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        bodies = super()._get_response_bodies(direction)
        for code in self._error_codes():
            if code not in bodies:
                schema = FIELD_ERRORS if code == "400" else ErrorSerializer
                bodies[code] = self._get_response_for_code(schema, code, direction=direction)
                bodies[code]["description"] = _ERRORS[code]
        return bodies

    def _error_codes(self) -> list[str]:
        codes = []
        takes_input = self.method in ("POST", "PUT", "PATCH") or any(
            parameter.get("in") == "query" for parameter in self._get_parameters()
        )
        if takes_input:
            codes.append("400")
        if not all(isinstance(p, AllowAny) for p in self.view.get_permissions()):
            codes += ["401", "403"]
        if "{" in self.path:
            codes.append("404")
        if "401" in codes:  # the caller is looked up in the database
            codes.append("503")
        return codes
