from django.apps import AppConfig


class AssessmentsConfig(AppConfig):
    name = "gridstride.assessments"
    label = "assessments"
