from django.contrib import admin
from django.urls import include, path

from gridstride.api.views import api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("submissions/", include("gridstride.submissions.urls")),
    path("leaderboards/", include("gridstride.leaderboards.urls")),
    path("contests/", include("gridstride.contests.urls")),
    path("", include("gridstride.assessments.urls")),
    path("", include("gridstride.accounts.urls")),
    path("", include("gridstride.pages.urls")),
    path("", include("gridstride.catalog.urls")),
]
