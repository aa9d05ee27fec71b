from rest_framework import serializers

from .models import Person, Post, Profile


class PersonSerializer(serializers.ModelSerializer):
    class Meta:
        model = Person
        fields = ["id", "first_name", "last_name", "age", "email", "favorite_color", "created_at"]
        read_only_fields = ["id", "created_at"]

    def validate(self, attrs):
        # An object-level rule, so that errors also come as {"non_field_errors": ["…"]}.
        # For PATCH, fall back to the stored values of the fields that were not sent.
        first = attrs.get("first_name", getattr(self.instance, "first_name", None))
        last = attrs.get("last_name", getattr(self.instance, "last_name", None))
        if first is not None and first == last:
            raise serializers.ValidationError("first_name and last_name must differ.")
        return attrs


class PostSerializer(serializers.ModelSerializer):
    class Meta:
        model = Post
        fields = ["id", "person", "title", "body"]
        read_only_fields = ["id", "person"]  # the person comes from the URL


class ProfileSerializer(serializers.ModelSerializer):
    # A decimal amount on the wire (the model stores its text exactly; see Profile.balance).
    balance = serializers.DecimalField(max_digits=20, decimal_places=2, required=False)

    class Meta:
        model = Profile
        fields = ["id", "name", "settings", "balance"]
        read_only_fields = ["id"]
