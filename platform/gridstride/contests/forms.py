"""The organizer's contest form: field checks here, the contest's own rules in actions.create_contest."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model

from gridstride.catalog import picker
from gridstride.catalog.models import Problem
from gridstride.contests import scoring
from gridstride.contests.models import Registration
from gridstride.submissions.models import Language

DATETIME_INPUT = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


def gpu_model_choices() -> list[tuple[str, str]]:
    models = dict.fromkeys([settings.JUDGE_DEFAULT_GPU, *settings.JUDGE_GPU_MODELS])
    return [(g, "CPU (unranked judge)" if g == "cpu" else g.upper()) for g in models]


class ContestForm(forms.Form):
    title = forms.CharField(max_length=200)
    slug = forms.SlugField(max_length=48, label="Short name", help_text="In the address: /contests/<short name>/")
    rules = forms.CharField(widget=forms.Textarea(attrs={"rows": 6}), required=False, help_text="Markdown.")
    starts_at = forms.DateTimeField(widget=DATETIME_INPUT, label="Starts (UTC)")
    ends_at = forms.DateTimeField(widget=DATETIME_INPUT, label="Ends (UTC)")
    freeze_minutes = forms.IntegerField(
        min_value=0, initial=0, label="Freeze (minutes before the end)", help_text="0: the board never freezes."
    )
    problems = forms.ModelMultipleChoiceField(queryset=Problem.objects.none(), widget=picker.ProblemPicker)
    gpu_models = forms.MultipleChoiceField(choices=(), widget=forms.CheckboxSelectMultiple, label="GPU models")
    languages = forms.MultipleChoiceField(
        choices=Language.choices,
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text="None checked: every language each problem takes.",
    )
    registration = forms.ChoiceField(choices=Registration.choices, initial=Registration.OPEN)
    invite_code = forms.CharField(max_length=64, required=False, help_text="With registration by invite code.")
    team_size = forms.IntegerField(min_value=1, max_value=10, initial=1, help_text="1: individuals.")
    hourly_limit = forms.IntegerField(
        min_value=0, initial=0, label="Submits per participant per hour", help_text="0: no limit."
    )
    scoring = forms.ChoiceField(choices=(), initial=scoring.DEFAULT_FORMAT)
    rerun_tolerance_pct = forms.FloatField(
        min_value=0,
        max_value=1000,  # CPU practice rounds: one kernel's CPU time varies by multiples under load
        initial=3.0,
        label="Re-run tolerance (%)",
        help_text="Slack beyond the confidence intervals when the final re-run's time is compared with the live one.",
    )
    organizers = forms.CharField(
        required=False, help_text="Usernames of further organizers, separated by commas (you are one)."
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Hidden problems are offered too: a contest is where they are meant to be used.
        picker.offer(self.fields["problems"])
        self.fields["gpu_models"].choices = gpu_model_choices()  # type: ignore[attr-defined]
        self.fields["scoring"].choices = scoring.choices()  # type: ignore[attr-defined]

    public_warning = picker.CONTEST_WARNING

    def public_chosen(self) -> list[Problem]:
        return picker.public_chosen(self["problems"])

    def clean_organizers(self) -> list[Any]:
        names = [n.strip() for n in self.cleaned_data.get("organizers", "").split(",") if n.strip()]
        users = list(get_user_model().objects.filter(username__in=names))
        missing = sorted(set(names) - {u.get_username() for u in users})
        if missing:
            raise forms.ValidationError(f"No such users: {', '.join(missing)}.")
        return users


class ContestEditForm(forms.Form):
    """What an organizer may change while a contest runs (actions.EDITABLE_WHILE_RUNNING)."""

    title = forms.CharField(max_length=200)
    rules = forms.CharField(widget=forms.Textarea(attrs={"rows": 6}), required=False, help_text="Markdown.")
    ends_at = forms.DateTimeField(widget=DATETIME_INPUT, label="Ends (UTC)")
    freeze_minutes = forms.IntegerField(min_value=0, label="Freeze (minutes before the end)")
    hourly_limit = forms.IntegerField(min_value=0, label="Submits per participant per hour", help_text="0: no limit.")
    rerun_tolerance_pct = forms.FloatField(min_value=0, max_value=1000, label="Re-run tolerance (%)")
    organizers = forms.CharField(required=False, help_text="Usernames of further organizers, separated by commas.")

    clean_organizers = ContestForm.clean_organizers
