"""Routes: DefaultRouter with /people/, /people/{id}/, the nested /people/{person_pk}/posts/,
/secure-people/ (token), /secure/people/ (Basic first, then token) and /profiles/ (a nested JSON field)."""
from rest_framework.routers import DefaultRouter

from people.views import BasicSecurePersonViewSet, PersonViewSet, PostViewSet, ProfileViewSet, SecurePersonViewSet

router = DefaultRouter()  # trailing_slash=True: every route ends with "/"
router.register(r"people", PersonViewSet, basename="person")
router.register(r"people/(?P<person_pk>[^/.]+)/posts", PostViewSet, basename="person-post")
router.register(r"secure-people", SecurePersonViewSet, basename="secure-person")
router.register(r"secure/people", BasicSecurePersonViewSet, basename="basic-secure-person")
router.register(r"profiles", ProfileViewSet, basename="profile")

urlpatterns = list(router.urls)  # a copy: the lists below are added to it, not to the router's own

# /api/schema/: the OpenAPI document (drf-spectacular), when it is installed (see settings.py), of the plain DRF
# routes above only (the JSON:API routes below are another API with the same resource names).
try:
    from django.urls import path
    from drf_spectacular.views import SpectacularAPIView
except ImportError:
    pass
else:
    urlpatterns += [path("api/schema/", SpectacularAPIView.as_view(patterns=list(router.urls)), name="schema")]

# JSON:API (djangorestframework-jsonapi, configured per view in people/jsonapi.py) under /jsonapi/, no trailing slash.
from people import jsonapi  # noqa: E402

jsonapi_router = DefaultRouter(trailing_slash=False)
jsonapi_router.register(r"jsonapi/people", jsonapi.PersonViewSet, basename="jsonapi-person")
jsonapi_router.register(r"jsonapi/people/(?P<person_pk>[^/.]+)/posts", jsonapi.PostViewSet, basename="jsonapi-post")
urlpatterns += [url for url in jsonapi_router.urls if url.name != "api-root"]
