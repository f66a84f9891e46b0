from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "gridstride.accounts"
    label = "accounts"
