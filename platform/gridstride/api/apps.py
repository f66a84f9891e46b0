from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "gridstride.api"
    label = "api"
