from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "gridstride.leaderboards"
    label = "leaderboards"
