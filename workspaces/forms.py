"""UI forms of workspaces: they parse input only; the services decide."""

from django import forms

from workspaces.models import Role


class WorkspaceForm(forms.Form):
    name = forms.CharField(max_length=200)


class MemberAddForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Role.choices, initial=Role.TEACHER)


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices)
