from django.urls import path

from gridstride.contests import views

app_name = "contests"
urlpatterns = [
    path("", views.contest_list, name="list"),
    path("new/", views.create, name="create"),
    path("<slug:slug>/", views.detail, name="detail"),
    path("<slug:slug>/register/", views.register, name="register"),
    path("<slug:slug>/virtual/", views.virtual, name="virtual"),
    path("<slug:slug>/board/", views.live_board, name="board"),
    path("<slug:slug>/results/", views.results, name="results"),
    path("<slug:slug>/results.json", views.results_json, name="results_json"),
    path("<slug:slug>/results.csv", views.results_csv, name="results_csv"),
    path("<slug:slug>/review/", views.review, name="review"),
    path("<slug:slug>/review/<int:pk>/", views.decide, name="decide"),
    path("<slug:slug>/finalize/", views.finalize, name="finalize"),
    path("<slug:slug>/edit/", views.edit, name="edit"),
    path("<slug:slug>/mine/", views.mine, name="mine"),
    path("<slug:slug>/problems/<str:label>/", views.problem, name="problem"),
    path("<slug:slug>/problems/<str:label>/submit/", views.submit, name="submit"),
]
