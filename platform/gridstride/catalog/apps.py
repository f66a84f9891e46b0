from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "gridstride.catalog"
    label = "catalog"
