"""UI forms: they parse input only; the services decide."""

from django import forms

from dedup.services import DEFAULT_METHOD, method_names


class RunForm(forms.Form):
    method = forms.ChoiceField(
        choices=[(name, name) for name in method_names()], initial=DEFAULT_METHOD
    )
