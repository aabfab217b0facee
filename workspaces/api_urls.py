from django.urls import path

from workspaces import api

urlpatterns = [
    path("workspaces/", api.WorkspaceListApi.as_view(), name="api_workspaces"),
    path("workspaces/<int:workspace_id>/", api.WorkspaceDetailApi.as_view(), name="api_workspace"),
    path(
        "workspaces/<int:workspace_id>/members/",
        api.WorkspaceMembersApi.as_view(),
        name="api_workspace_members",
    ),
    path(
        "workspaces/<int:workspace_id>/members/<int:user_id>/",
        api.WorkspaceMemberApi.as_view(),
        name="api_workspace_member",
    ),
    path(
        "workspaces/<int:workspace_id>/invitations/",
        api.WorkspaceInvitationsApi.as_view(),
        name="api_workspace_invitations",
    ),
    path("invitations/<str:token>/", api.InvitationAcceptApi.as_view(), name="api_invitation"),
]
