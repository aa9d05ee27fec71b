"""Create (or reuse) the interop test user and print its DRF token key on stdout.

The user's password is the token key too, so the Basic tests (`/secure/people/`) log in as interop:<key>."""
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from rest_framework.authtoken.models import Token


class Command(BaseCommand):
    help = "Ensure the user 'interop' exists with a DRF token and print the token key."

    def add_arguments(self, parser):
        parser.add_argument("--key", help="use this 40-character key instead of a random one")

    def handle(self, *args, **options):
        user, _ = get_user_model().objects.get_or_create(username="interop")
        Token.objects.filter(user=user).delete()
        token = Token.objects.create(user=user, key=options["key"]) if options["key"] else Token.objects.create(user=user)
        user.set_password(token.key)
        user.save()
        self.stdout.write(token.key)
