from django.apps import AppConfig


class ContestsConfig(AppConfig):
    name = "gridstride.contests"
    label = "contests"
