from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        required=True, help_text="For password resets only; never shown to anyone.", widget=forms.EmailInput()
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].widget.attrs.update({"autocomplete": "username", "autofocus": True})
        self.fields["email"].widget.attrs.update({"autocomplete": "email"})

    def clean_username(self) -> str:
        username = str(self.cleaned_data["username"])
        if get_user_model().objects.filter(username__iexact=username).exists():
            raise forms.ValidationError("That username is taken.")
        return username

    def clean_email(self) -> str:
        email = str(self.cleaned_data["email"]).strip()
        if get_user_model().objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("An account with this email exists; reset its password instead.")
        return email


class TokenForm(forms.Form):
    name = forms.CharField(max_length=64, initial="cli", help_text="Where you will use it, e.g. “laptop CLI”.")
