from django.apps import AppConfig


class PagesConfig(AppConfig):
    name = "gridstride.pages"
    label = "pages"
