"""UI URLs of workspaces (included at the site root)."""

from django.urls import path

from workspaces import views

urlpatterns = [
    path("workspaces/", views.workspace_list, name="workspace_list"),
    path("workspaces/<int:workspace_id>/", views.workspace_detail, name="workspace_detail"),
    path(
        "workspaces/<int:workspace_id>/rename/",
        views.workspace_rename,
        name="workspace_rename",
    ),
    path(
        "workspaces/<int:workspace_id>/members/",
        views.workspace_member_add,
        name="workspace_member_add",
    ),
    path(
        "workspaces/<int:workspace_id>/members/<int:user_id>/role/",
        views.workspace_member_role,
        name="workspace_member_role",
    ),
    path(
        "workspaces/<int:workspace_id>/members/<int:user_id>/remove/",
        views.workspace_member_remove,
        name="workspace_member_remove",
    ),
    path(
        "workspaces/<int:workspace_id>/invitations/",
        views.workspace_invite,
        name="workspace_invite",
    ),
    path("invitations/<str:token>/", views.invitation_accept, name="invitation_accept"),
]
