from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    name = "gridstride.submissions"
    label = "submissions"
