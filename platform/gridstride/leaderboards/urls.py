from django.urls import path

from gridstride.leaderboards import views

app_name = "leaderboards"
urlpatterns = [
    path("", views.index, name="index"),
    path("<slug:slug>/", views.board, name="board"),
]
