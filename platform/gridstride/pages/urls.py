from django.urls import path

from gridstride.pages import views

app_name = "pages"
urlpatterns = [
    path("about/", views.about, name="about"),
    path("healthz", views.healthz, name="healthz"),
]
