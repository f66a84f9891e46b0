from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from gridstride.accounts import views

app_name = "accounts"
urlpatterns = [
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/change/",
        auth_views.PasswordChangeView.as_view(success_url=reverse_lazy("accounts:password_change_done")),
        name="password_change",
    ),
    path("accounts/password/change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path(
        "accounts/password/reset/",
        auth_views.PasswordResetView.as_view(success_url=reverse_lazy("accounts:password_reset_done")),
        name="password_reset",
    ),
    path("accounts/password/reset/sent/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(success_url=reverse_lazy("accounts:password_reset_complete")),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("accounts/tokens/", views.tokens, name="tokens"),
    path("accounts/tokens/<int:token_id>/revoke/", views.token_revoke, name="token_revoke"),
    path("users/<str:username>/", views.profile, name="profile"),
]
