"""Every collection belongs to a workspace: each existing user gets a personal workspace (as
its admin) and their collections move into it; `owner` stays as the creator."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def personal_workspaces(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Workspace = apps.get_model("workspaces", "Workspace")
    Membership = apps.get_model("workspaces", "Membership")
    Collection = apps.get_model("documents", "Collection")
    for user in User.objects.filter(personal_workspace__isnull=True).iterator():
        workspace = Workspace.objects.create(name=user.username, personal_of=user)
        Membership.objects.create(workspace=workspace, user=user, role="admin")
    for workspace in Workspace.objects.filter(personal_of__isnull=False).iterator():
        Collection.objects.filter(owner_id=workspace.personal_of_id, workspace=None).update(
            workspace=workspace
        )


class Migration(migrations.Migration):
    dependencies = [
        ("documents", "0027_upload_keys"),
        ("workspaces", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="collection",
            name="workspace",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="collections",
                to="workspaces.workspace",
            ),
        ),
        migrations.RunPython(personal_workspaces, migrations.RunPython.noop),
    ]
