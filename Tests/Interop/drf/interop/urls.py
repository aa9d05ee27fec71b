"""Routes: DefaultRouter with /people/, /people/{id}/, the nested /people/{person_pk}/posts/ and /secure-people/."""
from rest_framework.routers import DefaultRouter

from people.views import PersonViewSet, PostViewSet, SecurePersonViewSet

router = DefaultRouter()  # trailing_slash=True: every route ends with "/"
router.register(r"people", PersonViewSet, basename="person")
router.register(r"people/(?P<person_pk>[^/.]+)/posts", PostViewSet, basename="person-post")
router.register(r"secure-people", SecurePersonViewSet, basename="secure-person")

urlpatterns = router.urls
