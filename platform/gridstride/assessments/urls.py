from django.urls import path

from gridstride.assessments import views_candidate as cand
from gridstride.assessments import views_team as team

app_name = "assessments"
A = "orgs/<slug:slug>/a/<uuid:public_id>/"
urlpatterns = [
    # The hiring team's pages.
    path("orgs/", team.organizations, name="orgs"),
    path("orgs/<slug:slug>/", team.org_home, name="org"),
    path("orgs/<slug:slug>/members/", team.member_add, name="member_add"),
    path("orgs/<slug:slug>/new/", team.assessment_new, name="assessment_new"),
    path(A, team.assessment_detail, name="assessment"),
    path(A + "edit/", team.assessment_edit, name="assessment_edit"),
    path(A + "invite/", team.invite, name="invite"),
    path(A + "invitations/<int:invitation_id>/<str:action>/", team.invitation_action, name="invitation_action"),
    path(A + "export.csv", team.export_csv, name="export_csv"),
    path(A + "c/<int:candidate_id>/", team.candidate_report, name="candidate"),
    path(A + "c/<int:candidate_id>/extra/", team.candidate_extra, name="candidate_extra"),
    path(A + "c/<int:candidate_id>/s/<uuid:submission_id>/source", team.submission_source, name="submission_source"),
    # The candidate's pages.
    path("a/invite/<str:token>/", cand.accept, name="accept"),
    path("a/<uuid:public_id>/", cand.landing, name="landing"),
    path("a/<uuid:public_id>/start/", cand.start, name="start"),
    path("a/<uuid:public_id>/finish/", cand.finish, name="finish"),
    path("a/<uuid:public_id>/clock/", cand.clock_view, name="clock"),
    path("a/<uuid:public_id>/p/<slug:slug>/", cand.workspace, name="workspace"),
    path("a/<uuid:public_id>/p/<slug:slug>/submit/", cand.submit, name="submit"),
    path("a/<uuid:public_id>/p/<slug:slug>/snapshot/", cand.snapshot, name="snapshot"),
    path("a/<uuid:public_id>/p/<slug:slug>/event/", cand.event, name="event"),
]
