from django.shortcuts import get_object_or_404
from rest_framework import serializers, viewsets
from rest_framework.authentication import BasicAuthentication, TokenAuthentication
from rest_framework.permissions import IsAuthenticated

from .models import Person, Post, Profile
from .serializers import PersonSerializer, PostSerializer, ProfileSerializer


def _int_param(params, name):
    raw = params.get(name)
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise serializers.ValidationError({name: ["Enter a whole number."]})


class PersonViewSet(viewsets.ModelViewSet):
    """/people/ and /people/{id}/; list filters: first_name, last_name (exact), age__gte, age__lte."""

    serializer_class = PersonSerializer

    def get_queryset(self):
        queryset = Person.objects.all()
        params = self.request.query_params
        for name in ("first_name", "last_name"):
            if params.get(name):
                queryset = queryset.filter(**{name: params[name]})
        age_gte = _int_param(params, "age__gte")
        if age_gte is not None:
            queryset = queryset.filter(age__gte=age_gte)
        age_lte = _int_param(params, "age__lte")
        if age_lte is not None:
            queryset = queryset.filter(age__lte=age_lte)
        return queryset


class SecurePersonViewSet(PersonViewSet):
    """The same resource behind DRF's TokenAuthentication ("Authorization: Token <key>")."""

    authentication_classes = [TokenAuthentication]
    permission_classes = [IsAuthenticated]


class BasicSecurePersonViewSet(PersonViewSet):
    """The same resource behind DRF's BasicAuthentication first (a 401 carries `WWW-Authenticate: Basic realm="api"`),
    with TokenAuthentication as well: a wrong token is a 401 with that Basic challenge too."""

    authentication_classes = [BasicAuthentication, TokenAuthentication]
    permission_classes = [IsAuthenticated]


class PostViewSet(viewsets.ModelViewSet):
    """/people/{person_pk}/posts/ and /people/{person_pk}/posts/{id}/; an unknown person is a 404."""

    serializer_class = PostSerializer

    def get_person(self):
        return get_object_or_404(Person, pk=self.kwargs["person_pk"])

    def get_queryset(self):
        return Post.objects.filter(person=self.get_person())

    def perform_create(self, serializer):
        serializer.save(person=self.get_person())


class ProfileViewSet(viewsets.ModelViewSet):
    """/profiles/ and /profiles/{id}/: a name and a nested JSON object (`settings`), which a PATCH replaces whole."""

    queryset = Profile.objects.all()
    serializer_class = ProfileSerializer
