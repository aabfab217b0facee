"""JSON API of workspaces: create and list them, manage members, invitation links."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.schema import ErrorSerializer
from workspaces import selectors, services
from workspaces.models import Invitation, Workspace
from workspaces.policy import role_of, workspace_for
from workspaces.roles import Need
from workspaces.serializers import (
    InvitationCreateSerializer,
    InvitationSerializer,
    MemberAddSerializer,
    MemberRoleSerializer,
    MembershipSerializer,
    WorkspaceCreateSerializer,
    WorkspaceDetailSerializer,
    WorkspaceSerializer,
)


def _conflict(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorSerializer, description=description)


class WorkspaceListApi(APIView):
    @extend_schema(responses=WorkspaceSerializer(many=True))
    def get(self, request: Request) -> Response:
        """The caller's workspaces with their role; the personal one first."""
        services.workspace_personal(user=request.user)
        workspaces = selectors.workspace_list(user=request.user)
        return Response(WorkspaceSerializer(workspaces, many=True).data)

    @extend_schema(request=WorkspaceCreateSerializer, responses={201: WorkspaceSerializer})
    def post(self, request: Request) -> Response:
        """Create a shared workspace; the caller is its admin."""
        data = WorkspaceCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        workspace = services.workspace_create(user=request.user, name=data.validated_data["name"])
        workspace.role = "admin"  # type: ignore[attr-defined]
        return Response(WorkspaceSerializer(workspace).data, status=status.HTTP_201_CREATED)


def _detail(workspace: Workspace, role: str | None) -> dict:
    workspace.role = role  # type: ignore[attr-defined]
    workspace.members = selectors.member_list(workspace=workspace)  # type: ignore[attr-defined]
    return WorkspaceDetailSerializer(workspace).data


class WorkspaceDetailApi(APIView):
    @extend_schema(responses=WorkspaceDetailSerializer)
    def get(self, request: Request, workspace_id: int) -> Response:
        workspace = workspace_for(user=request.user, workspace_id=workspace_id)
        return Response(_detail(workspace, role_of(user=request.user, workspace_id=workspace.id)))

    @extend_schema(request=WorkspaceCreateSerializer, responses=WorkspaceDetailSerializer)
    def patch(self, request: Request, workspace_id: int) -> Response:
        """Rename the workspace (admins)."""
        workspace = workspace_for(user=request.user, workspace_id=workspace_id, need="admin")
        data = WorkspaceCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.workspace_rename(workspace=workspace, name=data.validated_data["name"])
        return Response(_detail(workspace, "admin"))


class WorkspaceMembersApi(APIView):
    @extend_schema(responses=MembershipSerializer(many=True))
    def get(self, request: Request, workspace_id: int) -> Response:
        workspace = workspace_for(user=request.user, workspace_id=workspace_id)
        return Response(
            MembershipSerializer(selectors.member_list(workspace=workspace), many=True).data
        )

    @extend_schema(
        request=MemberAddSerializer,
        responses={201: MembershipSerializer, 409: _conflict("The user is a member already")},
    )
    def post(self, request: Request, workspace_id: int) -> Response:
        """Add a user of this instance, by username, with a role (admins only)."""
        workspace = workspace_for(user=request.user, workspace_id=workspace_id, need="admin")
        data = MemberAddSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        member = services.member_add(workspace=workspace, **data.validated_data)
        return Response(MembershipSerializer(member).data, status=status.HTTP_201_CREATED)


class WorkspaceMemberApi(APIView):
    @extend_schema(
        request=MemberRoleSerializer,
        responses={200: MembershipSerializer, 409: _conflict("The last admin would be demoted")},
    )
    def patch(self, request: Request, workspace_id: int, user_id: int) -> Response:
        """Change a member's role (admins only; the last admin stays admin: 409)."""
        workspace = workspace_for(user=request.user, workspace_id=workspace_id, need="admin")
        data = MemberRoleSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        member = services.member_role_set(
            workspace=workspace, user_id=user_id, role=data.validated_data["role"]
        )
        return Response(MembershipSerializer(member).data)

    @extend_schema(responses={204: None, 409: _conflict("The last admin would leave")})
    def delete(self, request: Request, workspace_id: int, user_id: int) -> Response:
        """Remove a member (admins), or leave (any member, their own id); the last admin
        cannot leave (409)."""
        need: Need = "read" if user_id == request.user.pk else "admin"
        workspace = workspace_for(user=request.user, workspace_id=workspace_id, need=need)
        services.member_remove(workspace=workspace, user_id=user_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


def invitation_body(request: Request, invitation: Invitation) -> dict:
    url = request.build_absolute_uri(reverse("invitation_accept", args=[invitation.token]))
    return InvitationSerializer(
        {
            "url": url,
            "token": invitation.token,
            "role": invitation.role,
            "expires_at": invitation.expires_at,
        }
    ).data


class WorkspaceInvitationsApi(APIView):
    @extend_schema(request=InvitationCreateSerializer, responses={201: InvitationSerializer})
    def post(self, request: Request, workspace_id: int) -> Response:
        """A link (no mail needed) that makes whoever opens it, logged in, a member with
        `role`; used once, valid for a week (admins only)."""
        workspace = workspace_for(user=request.user, workspace_id=workspace_id, need="admin")
        data = InvitationCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        invitation = services.invitation_create(
            workspace=workspace, role=data.validated_data["role"], by=request.user
        )
        return Response(invitation_body(request, invitation), status=status.HTTP_201_CREATED)


class InvitationAcceptApi(APIView):
    @extend_schema(
        request=None,
        responses={200: WorkspaceSerializer, 409: _conflict("Used already, or expired")},
    )
    def post(self, request: Request, token: str) -> Response:
        """Join the invitation's workspace (409 when used already or expired)."""
        invitation = selectors.invitation_get(token=token)
        member = services.invitation_accept(invitation=invitation, user=request.user)
        workspace = invitation.workspace
        workspace.role = member.role  # type: ignore[attr-defined]
        return Response(WorkspaceSerializer(workspace).data)
