"""Server-rendered pages of workspaces: the list, a workspace's members, invitation links."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from core.http import AuthenticatedHttpRequest
from workspaces import selectors, services
from workspaces.forms import MemberAddForm, RoleForm, WorkspaceForm
from workspaces.models import Role
from workspaces.policy import role_of, workspace_for
from workspaces.roles import Need, rights_of


@login_required
def workspace_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The user's workspaces; POST: create a shared one."""
    form = WorkspaceForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        workspace = services.workspace_create(user=request.user, name=form.cleaned_data["name"])
        return redirect("workspace_detail", workspace_id=workspace.id)
    services.workspace_personal(user=request.user)
    workspaces = selectors.workspace_list(user=request.user)
    return render(request, "workspaces/list.html", {"form": form, "workspaces": workspaces})


@login_required
def workspace_detail(request: AuthenticatedHttpRequest, workspace_id: int) -> HttpResponse:
    workspace = workspace_for(user=request.user, workspace_id=workspace_id)
    role = role_of(user=request.user, workspace_id=workspace.id)
    context = {
        "workspace": workspace,
        "role": role,
        "rights": rights_of(role),
        "members": selectors.member_list(workspace=workspace),
        "roles": Role.choices,
        "add_form": MemberAddForm(),
        "rename_form": WorkspaceForm(initial={"name": workspace.name}),
    }
    return render(request, "workspaces/detail.html", context)


@login_required
@require_POST
def workspace_rename(request: AuthenticatedHttpRequest, workspace_id: int) -> HttpResponse:
    workspace = workspace_for(user=request.user, workspace_id=workspace_id, need="admin")
    form = WorkspaceForm(request.POST)
    if form.is_valid():
        services.workspace_rename(workspace=workspace, name=form.cleaned_data["name"])
        messages.success(request, "Saved.")
    else:
        messages.error(request, "Give the workspace a name.")
    return redirect("workspace_detail", workspace_id=workspace.id)


@login_required
@require_POST
def workspace_member_add(request: AuthenticatedHttpRequest, workspace_id: int) -> HttpResponse:
    workspace = workspace_for(user=request.user, workspace_id=workspace_id, need="admin")
    form = MemberAddForm(request.POST)
    if form.is_valid():
        member = services.member_add(workspace=workspace, **form.cleaned_data)
        messages.success(request, f"{member.user.get_username()} is now a {member.role}.")
    else:
        messages.error(request, "Give a username and a role.")
    return redirect("workspace_detail", workspace_id=workspace.id)


@login_required
@require_POST
def workspace_member_role(
    request: AuthenticatedHttpRequest, workspace_id: int, user_id: int
) -> HttpResponse:
    workspace = workspace_for(user=request.user, workspace_id=workspace_id, need="admin")
    form = RoleForm(request.POST)
    if form.is_valid():
        member = services.member_role_set(
            workspace=workspace, user_id=user_id, role=form.cleaned_data["role"]
        )
        messages.success(request, f"{member.user.get_username()} is now a {member.role}.")
    return redirect("workspace_detail", workspace_id=workspace.id)


@login_required
@require_POST
def workspace_member_remove(
    request: AuthenticatedHttpRequest, workspace_id: int, user_id: int
) -> HttpResponse:
    """Remove a member (admins), or leave (oneself)."""
    leaving = user_id == request.user.pk
    need: Need = "read" if leaving else "admin"
    workspace = workspace_for(user=request.user, workspace_id=workspace_id, need=need)
    services.member_remove(workspace=workspace, user_id=user_id)
    if leaving:
        messages.success(request, f"You left {workspace.name}.")
        return redirect("workspace_list")
    messages.success(request, "The member was removed.")
    return redirect("workspace_detail", workspace_id=workspace.id)


@login_required
@require_POST
def workspace_invite(request: AuthenticatedHttpRequest, workspace_id: int) -> HttpResponse:
    """Make an invitation link for a role and show it, to be passed on by hand."""
    workspace = workspace_for(user=request.user, workspace_id=workspace_id, need="admin")
    form = RoleForm(request.POST)
    role = form.cleaned_data["role"] if form.is_valid() else Role.TEACHER
    invitation = services.invitation_create(workspace=workspace, role=role, by=request.user)
    url = request.build_absolute_uri(reverse("invitation_accept", args=[invitation.token]))
    context = {"workspace": workspace, "invitation": invitation, "url": url}
    return render(request, "workspaces/invitation_created.html", context)


@login_required
def invitation_accept(request: AuthenticatedHttpRequest, token: str) -> HttpResponse:
    """GET: what joining means; POST: join the workspace."""
    invitation = selectors.invitation_get(token=token)
    if request.method == "POST":
        member = services.invitation_accept(invitation=invitation, user=request.user)
        messages.success(request, f"You joined {invitation.workspace.name} as a {member.role}.")
        return redirect("workspace_detail", workspace_id=invitation.workspace_id)
    context = {"invitation": invitation, "expired": invitation.expires_at <= timezone.now()}
    return render(request, "workspaces/invitation.html", context)
