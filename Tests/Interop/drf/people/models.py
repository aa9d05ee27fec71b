"""The two resources of the interop server: Person and its Posts."""
from django.db import models


class Person(models.Model):
    first_name = models.CharField(max_length=100)
    last_name = models.CharField(max_length=100)
    # PositiveIntegerField gives the serializer min_value=0: a negative age is a field error.
    age = models.PositiveIntegerField(null=True, blank=True)
    # Optional, may be "" but not null (DRF: "This field may not be null.").
    email = models.EmailField(blank=True, default="")
    favorite_color = models.CharField(max_length=50, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]


class Post(models.Model):
    person = models.ForeignKey(Person, related_name="posts", on_delete=models.CASCADE)
    title = models.CharField(max_length=200)
    body = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["id"]


class Profile(models.Model):
    """A resource with a nested JSON object, to show what a PATCH does to it: DRF replaces a JSONField with the
    value the PATCH sends (it does not merge nested members)."""
    name = models.CharField(max_length=100)
    settings = models.JSONField(default=dict, blank=True)
    # An amount, exposed by the serializer as a DecimalField (rendered as a string, "1234567890.12"). Stored as text:
    # SQLite keeps a models.DecimalField as a REAL (15 significant digits), where PostgreSQL's numeric is exact.
    balance = models.CharField(max_length=40, default="0")

    class Meta:
        ordering = ["id"]
