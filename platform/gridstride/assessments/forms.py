"""Forms of the hiring team's pages (the candidate's pages take a few plain fields)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings

from gridstride.assessments.actions import MAX_EXTRA_PCT
from gridstride.catalog import picker
from gridstride.catalog.models import Problem
from gridstride.submissions.models import Language


class OrganizationForm(forms.Form):
    name = forms.CharField(max_length=120)
    slug = forms.SlugField(max_length=48, required=False, help_text="In the address; made from the name if empty.")


class MemberForm(forms.Form):
    who = forms.CharField(label="Username or email", max_length=254)
    role = forms.ChoiceField(
        choices=[("reviewer", "reviewer (reads reports)"), ("owner", "owner (also edits and invites)")]
    )


class AssessmentForm(forms.Form):
    title = forms.CharField(max_length=200)
    problems = forms.ModelMultipleChoiceField(
        queryset=Problem.objects.none(),
        widget=picker.ProblemPicker,
        help_text="Hidden problems are never shown publicly: candidates cannot have practised them.",
    )
    languages = forms.MultipleChoiceField(
        choices=Language.choices,
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text="None ticked: every language a problem takes.",
    )
    gpu_model = forms.ChoiceField(label="GPU")
    duration_minutes = forms.IntegerField(
        label="Duration per candidate (minutes)", min_value=1, max_value=24 * 60, initial=90
    )
    opens_at = forms.DateTimeField(
        label="Opens (UTC)", required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    closes_at = forms.DateTimeField(
        label="Last start (UTC)", required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    instructions = forms.CharField(widget=forms.Textarea(attrs={"rows": 8}), required=False, help_text="Markdown.")
    webhook_url = forms.URLField(label="Webhook URL", required=False, assume_scheme="https")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        picker.offer(self.fields["problems"])
        gpus = [settings.JUDGE_DEFAULT_GPU, *[g for g in settings.JUDGE_GPU_MODELS if g != settings.JUDGE_DEFAULT_GPU]]
        self.fields["gpu_model"].choices = [(g, "CPU (testing only)" if g == "cpu" else g.upper()) for g in gpus]  # type: ignore[attr-defined]

    public_warning = picker.ASSESSMENT_WARNING

    def public_chosen(self) -> list[Problem]:
        return picker.public_chosen(self["problems"])

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("opens_at") and data.get("closes_at") and data["closes_at"] <= data["opens_at"]:
            self.add_error("closes_at", "The last start must come after the opening.")
        return data


class InviteForm(forms.Form):
    email = forms.EmailField()
    name = forms.CharField(max_length=120, required=False)
    extra_pct = forms.IntegerField(label="Extra time (%)", min_value=0, max_value=MAX_EXTRA_PCT, initial=0)


class ExtraTimeForm(forms.Form):
    extra_pct = forms.IntegerField(min_value=0, max_value=MAX_EXTRA_PCT)


class CandidateSignupForm(forms.Form):
    username = forms.RegexField(regex=r"^[\w.@+-]{3,150}$", max_length=150, help_text="Letters, digits and @ . + - _")
    password = forms.CharField(widget=forms.PasswordInput, min_length=10)
