from django.urls import path

from gridstride.catalog import views

app_name = "catalog"
urlpatterns = [
    path("", views.problem_list, name="problem_list"),
    path("problems/<slug:slug>/", views.problem_detail, name="problem_detail"),
    path("problems/<slug:slug>/ladder/", views.ladder, name="ladder"),
    path("problems/<slug:slug>/ladder/give-up/", views.ladder_give_up, name="ladder_give_up"),
]
