from django.urls import path

from games import views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("tables/new/", views.table_create, name="table_create"),
    path("t/<int:table_id>/", views.table_detail, name="table_detail"),
    path("t/<int:table_id>/view.json", views.table_view_json, name="table_view_json"),
    path("t/<int:table_id>/act/", views.table_act, name="table_act"),
    path("t/<int:table_id>/join/", views.table_join, name="table_join"),
    path("t/<int:table_id>/leave/", views.table_leave, name="table_leave"),
    path("t/<int:table_id>/abort/", views.table_abort, name="table_abort"),
    path("invite/<str:code>/", views.table_invite, name="table_invite"),
]
