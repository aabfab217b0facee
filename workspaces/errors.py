"""Errors of membership changes, answered by `core.errors`' handlers."""

from core.errors import AppError, ConflictError


class MemberError(AppError):
    """A membership change is refused (an unknown user or role); `field` says which input."""


class MemberConflict(ConflictError):
    """The change would leave the workspace without an admin, or the user is a member already."""
