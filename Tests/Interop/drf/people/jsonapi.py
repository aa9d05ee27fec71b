"""The same Person and Post, served as JSON:API by djangorestframework-jsonapi under /jsonapi/.

Configured per view (renderer, parser, pagination, metadata, exception handler), as the package's documentation
shows for settings, so that the plain DRF routes keep their own JSON: /jsonapi/people, /jsonapi/people/{id},
/jsonapi/people/{person_pk}/posts, /jsonapi/people/{person_pk}/posts/{id} (no trailing slash, as JSON:API servers
usually route). Types are "people" and "posts". JSON:API has no PUT: the views serve GET, POST, PATCH, DELETE.
"""
from django.shortcuts import get_object_or_404
from rest_framework import exceptions
from rest_framework_json_api import serializers
from rest_framework_json_api.exceptions import exception_handler
from rest_framework_json_api.metadata import JSONAPIMetadata
from rest_framework_json_api.pagination import JsonApiPageNumberPagination
from rest_framework_json_api.parsers import JSONParser
from rest_framework_json_api.relations import ResourceRelatedField
from rest_framework_json_api.renderers import JSONRenderer
from rest_framework_json_api.views import ModelViewSet

from .models import Person, Post


class JSONAPIPagination(JsonApiPageNumberPagination):
    """page[number] and page[size] (default 10, at most 100); meta.pagination {page, pages, count}, links.next."""

    page_size = 10


class PersonSerializer(serializers.ModelSerializer):
    class Meta:
        model = Person
        resource_name = "people"
        fields = ["first_name", "last_name", "age", "email", "favorite_color", "created_at"]
        read_only_fields = ["created_at"]

    def validate(self, attrs):
        first = attrs.get("first_name", getattr(self.instance, "first_name", None))
        last = attrs.get("last_name", getattr(self.instance, "last_name", None))
        if first is not None and first == last:
            raise serializers.ValidationError("first_name and last_name must differ.")
        return attrs


class PostSerializer(serializers.ModelSerializer):
    # The author is a required relationship: a post is created with {"relationships": {"person": {"data":
    # {"type": "people", "id": "3"}}}}, and it must be the person of the URL.
    person = ResourceRelatedField(queryset=Person.objects.all())
    included_serializers = {"person": PersonSerializer}

    class Meta:
        model = Post
        resource_name = "posts"
        fields = ["title", "body", "person"]


class JSONAPIViewMixin:
    """Everything JSON:API, for this view only."""

    renderer_classes = [JSONRenderer]
    parser_classes = [JSONParser]
    pagination_class = JSONAPIPagination
    metadata_class = JSONAPIMetadata
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_exception_handler(self):
        return exception_handler


class PersonViewSet(JSONAPIViewMixin, ModelViewSet):
    queryset = Person.objects.all()
    serializer_class = PersonSerializer
    resource_name = "people"

    def get_queryset(self):
        queryset = super().get_queryset()
        last_name = self.request.query_params.get("filter[last_name]")
        return queryset.filter(last_name=last_name) if last_name else queryset


class PostViewSet(JSONAPIViewMixin, ModelViewSet):
    serializer_class = PostSerializer
    resource_name = "posts"

    def get_person(self):
        return get_object_or_404(Person, pk=self.kwargs["person_pk"])

    def get_queryset(self):
        return Post.objects.filter(person=self.get_person())

    def perform_create(self, serializer):
        person = self.get_person()
        if serializer.validated_data["person"].pk != person.pk:
            raise exceptions.ValidationError({"person": ["A post is created under its own person."]})
        serializer.save()
