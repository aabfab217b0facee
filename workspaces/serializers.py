"""API input parsing and output shapes of workspaces (also the OpenAPI schema)."""

from rest_framework import serializers

from workspaces.models import Role


class WorkspaceCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)


class WorkspaceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    personal = serializers.SerializerMethodField(help_text="a user's own workspace")
    role = serializers.ChoiceField(choices=Role.choices, help_text="the caller's role in it")

    def get_personal(self, workspace: object) -> bool:
        return getattr(workspace, "personal_of_id", None) is not None


class MembershipSerializer(serializers.Serializer):
    user_id = serializers.IntegerField()
    username = serializers.CharField(source="user.username")
    role = serializers.ChoiceField(choices=Role.choices)
    joined = serializers.DateTimeField(source="created_at")


class WorkspaceDetailSerializer(WorkspaceSerializer):
    members = MembershipSerializer(many=True)


class MemberAddSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=Role.choices)


class MemberRoleSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Role.choices)


class InvitationCreateSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Role.choices, default=Role.TEACHER)


class InvitationSerializer(serializers.Serializer):
    url = serializers.CharField(help_text="open it logged in to join (used once)")
    token = serializers.CharField()
    role = serializers.ChoiceField(choices=Role.choices)
    expires_at = serializers.DateTimeField()
