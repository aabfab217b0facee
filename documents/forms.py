"""UI forms: they parse input only; the services decide."""

from django import forms

from documents.models import Collection, Verdict
from workspaces.models import Workspace


class CollectionForm(forms.Form):
    name = forms.CharField(max_length=200)
    kind = forms.ChoiceField(choices=Collection.Kind.choices, initial=Collection.Kind.ASSIGNMENT)


class NewCollectionForm(CollectionForm):
    """A new collection: its name, kind and the workspace it belongs to (the user's personal
    one when none is chosen)."""

    workspace = forms.ModelChoiceField(
        queryset=Workspace.objects.none(), empty_label=None, required=False
    )

    def __init__(self, *args: object, workspaces: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["workspace"].queryset = workspaces  # type: ignore[attr-defined]


class DeleteCollectionForm(forms.Form):
    confirm = forms.BooleanField(
        required=True, label="Delete its documents, their reports and their files too"
    )


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """A file field that returns every selected file (Django's documented recipe)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("widget", MultipleFileInput())
        # Empty files reach the service, which says which file was empty.
        kwargs.setdefault("allow_empty_file", True)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def clean(self, data: object, initial: object = None) -> list:
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(item, initial) for item in data]
        return [single(data, initial)]


class UploadForm(forms.Form):
    # A declared field: the form's metaclass moves it into `base_fields`, so it does not
    # replace `BaseForm.files` (the uploaded files), which the stubs cannot tell.
    files = MultipleFileField(label="Files")  # type: ignore[assignment]
    template = forms.BooleanField(
        required=False,
        label="Template: text every student was given (the prompt, starter text); it is "
        "never counted as copied",
    )
    submitted_at = forms.DateTimeField(
        required=False,
        label="Handed in",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
        help_text="When the students handed these files in; of two documents sharing "
        "passages, the earlier one is the original.",
    )
    bulk = forms.BooleanField(
        required=False,
        initial=True,
        label="Import in bulk: for a large archive (ZIP batches of thousands of files); "
        "searchable as they are stored, not checked against each other",
    )


class ArchivesForm(forms.Form):
    archives = forms.ModelMultipleChoiceField(
        queryset=Collection.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="None selected: every archive is checked.",
    )

    def __init__(self, *args: object, choices: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["archives"].queryset = choices  # type: ignore[attr-defined]


class ExclusionsForm(forms.Form):
    """What the collection's reports leave out of the similarity."""

    exclude_quotes = forms.BooleanField(required=False, label="quoted text")
    exclude_bibliography = forms.BooleanField(required=False, label="reference lists")
    min_match_words = forms.IntegerField(
        min_value=0,
        max_value=1000,
        label="matches shorter than (words; a Chinese character is a word)",
        widget=forms.NumberInput(attrs={"style": "width:5em"}),
    )


class SubmittedForm(forms.Form):
    submitted_at = forms.DateTimeField()


class VerdictForm(forms.Form):
    source = forms.IntegerField()
    verdict = forms.ChoiceField(choices=Verdict.Value.choices)
    note = forms.CharField(required=False, max_length=2000, widget=forms.Textarea)
    start = forms.IntegerField(required=False, min_value=0)
    end = forms.IntegerField(required=False, min_value=1)
