from django.urls import path

from gridstride.submissions import drafts, views

app_name = "submissions"
urlpatterns = [
    path("", views.mine, name="mine"),
    path("new/", views.create, name="create"),
    path("compare/", views.compare, name="compare"),
    path("<uuid:public_id>/", views.detail, name="detail"),
    path("<uuid:public_id>/status/", views.status, name="status"),
    path("<uuid:public_id>/report/", views.report, name="report"),
    path("<uuid:public_id>/visibility/", views.visibility, name="visibility"),
    path("drafts/<slug:slug>/<str:language>/", drafts.draft, name="draft"),
]
